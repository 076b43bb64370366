/**
 * What a family of the API declares in its folder (src/families/<family>/index.ts). The registry
 * (src/families/registry.ts) lists the families; the endpoint catalog, the validator, pricing, the limiter's
 * sub-limits, the table catalog and its DDL, the views, the docs and the sandbox's routes all derive from it. The sandbox's answers for a family
 * live apart, under src/sandbox/families/.
 */
import type { EndpointDef } from './endpoint.js';
import type { ColumnDef, TableDef } from './table.js';
import type { ViewDef } from './view.js';

export interface FamilyDef {
  /** The family's name: its path root (`/v3/<name>/...`), as the live service's `data.api` says it. */
  name: string;
  description: string;
  endpoints: readonly EndpointDef[];
  /** The tables its results land in (root tables name their `resultKind`), always in use. */
  tables?: readonly TableDef[];
  /** Tables of generated result kinds: in use (created) once a pipeline or a load needs them (activateTables). */
  onDemandTables?: readonly TableDef[];
  /** Request parameters the family echoes in a task's `data`, as further columns of `tasks`. */
  taskColumns?: readonly ColumnDef[];
  views?: readonly ViewDef[];
  /** The run report's section for the family, charts over its views; shown when a run collected the family. */
  report?: FamilyReportDef;
  /** Calls to the family's endpoints in flight at once, a sub-limit of the one limiter (Labs: 30). */
  inFlight?: number;
  /**
   * Calls in flight at once for a group of the family's endpoints, by endpoint id prefix (each vendor's live LLM
   * responses: 30); the longest prefix an endpoint id starts with is its group, instead of `inFlight`.
   */
  inFlightBy?: Readonly<Record<string, number>>;
}

/**
 * A chart of the run report, one line per series over the report's days, from a query over the family's views. The
 * query takes $1 (the window's first day), $2 (its last, the run's date) and $3 (the run id), and returns `date`
 * (YYYY-MM-DD text), `panel` (text or null: one small multiple per panel, such as a target), `series` (text: one
 * line) and `value` (a number), ordered as the lines should be listed.
 */
export interface FamilyChartDef {
  /** Part of the chart's id in the report (`<family>-<id>-<panel index>`). */
  id: string;
  title: string;
  /** The value's axis name. */
  yName: string;
  /** The views it reads (a test checks each is the family's own). */
  views: readonly string[];
  sql: string;
  /** Positions: 1 at the top. */
  invert?: boolean;
}

export interface FamilyReportDef {
  title: string;
  /** One sentence under the title: what the charts show and where from. */
  intro: string;
  charts: readonly FamilyChartDef[];
}
