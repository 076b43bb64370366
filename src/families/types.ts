/**
 * What a family of the API declares in its folder (src/families/<family>/index.ts). The registry
 * (src/families/registry.ts) lists the families; the endpoint catalog, the validator, pricing, the limiter's
 * sub-limits, the table catalog and its DDL, the views, the docs and the sandbox's routes all derive from it.
 */
import type { EndpointDef } from '../api/catalog.js';
import type { ColumnDef, TableDef } from '../normalize/catalog.js';
import type { ViewDef } from '../publish/views.js';
import type { FamilySandbox } from '../sandbox/family.js';

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
  /** Calls to the family's endpoints in flight at once, a sub-limit of the one limiter (Labs: 30). */
  inFlight?: number;
  /**
   * Calls in flight at once for a group of the family's endpoints, by endpoint id prefix (each vendor's live LLM
   * responses: 30); the longest prefix an endpoint id starts with is its group, instead of `inFlight`.
   */
  inFlightBy?: Readonly<Record<string, number>>;
  /**
   * The sandbox's answers for the family, loaded when a sandbox starts: the declarations above never import
   * sandbox code, so the catalog and the sandbox do not import each other.
   */
  sandbox?: () => Promise<{ default: FamilySandbox }>;
}
