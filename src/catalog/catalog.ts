/**
 * The catalog: every endpoint and table the registry's families declare, and the lookups derived from them, as one
 * value built once from a list of families (src/families/index.ts builds the process's). Nothing in it changes
 * after it is built (its memos fill on first use); a second catalog (a test's, of other families) shares nothing with
 * the first.
 */
import { TASKS_READY_LIMITS, type EndpointDef, type EndpointKind, type ResultKind } from './endpoint.js';
import { coreTables } from './core-tables.js';
import type { FamilyDef } from './family.js';
import { allColumns, type TableDef } from './table.js';

export class Catalog {
  /** Every endpoint of every family, in the registry's order; a tasks_ready entry carries the family-wide limits. */
  readonly endpoints: readonly EndpointDef[];
  /** Old endpoint ids and the ids they are now (each endpoint's `formerly`). */
  readonly aliases: ReadonlyMap<string, string>;
  /** The core tables and every family's declared ones: in use in every warehouse. */
  readonly coreTables: readonly TableDef[];
  /** Every table the families can write (`seo-etl tables --available`, docs/tables.md), in catalog order. */
  readonly tables: readonly TableDef[];
  readonly tableByName: ReadonlyMap<string, TableDef>;
  /**
   * The tables every warehouse holds from the start: the core tables, and the generated families' tables their
   * views read (so every view compiles); the others come into use with what a run fetches (src/load/tables-in-use.ts).
   */
  readonly alwaysInUse: readonly TableDef[];
  private readonly endpointById: ReadonlyMap<string, EndpointDef>;
  /** Each table's children in catalog order, indexed once: a filter per call made walking the catalog quadratic. */
  private readonly children: ReadonlyMap<string, readonly TableDef[]>;
  private readonly tableOrder: ReadonlyMap<string, number>;
  /** Each result kind's root table: the first in catalog order that names the kind (every task's load asks). */
  private readonly rootByKind: ReadonlyMap<ResultKind, TableDef>;
  /** Memos of derivations per endpoint, filled on first use (what they hold follows from the declarations alone). */
  private readonly tablesOfEndpoint = new Map<string, readonly string[]>();
  private readonly echoes = new Map<string, ReadonlySet<string>>();

  constructor(readonly families: readonly FamilyDef[]) {
    this.endpoints = families.flatMap((f) => f.endpoints.map((d) => (d.kind === 'tasks_ready' ? { ...d, ...TASKS_READY_LIMITS } : d)));
    this.endpointById = new Map(this.endpoints.map((e) => [e.id, e]));
    this.aliases = new Map(this.endpoints.flatMap((e) => (e.formerly ? [[e.formerly, e.id] as const] : [])));
    this.coreTables = coreTables(families);
    this.tables = [...this.coreTables, ...families.flatMap((f) => f.onDemandTables ?? [])];
    this.tableByName = new Map(this.tables.map((t) => [t.name, t]));
    this.tableOrder = new Map(this.tables.map((t, i) => [t.name, i]));
    const children = new Map<string, TableDef[]>();
    for (const t of this.tables) {
      if (t.parent === null) continue;
      const siblings = children.get(t.parent);
      if (siblings) siblings.push(t);
      else children.set(t.parent, [t]);
    }
    this.children = children;
    const roots = new Map<ResultKind, TableDef>();
    const claim = (kind: ResultKind, t: TableDef) => { if (!roots.has(kind)) roots.set(kind, t); };
    for (const t of this.tables) {
      if (t.resultKind) claim(t.resultKind, t);
      for (const kind of t.alsoResultKinds ?? []) claim(kind, t);
    }
    this.rootByKind = roots;
    this.alwaysInUse = this.inOrder([...this.coreTables.map((t) => t.name), ...families.flatMap((f) => (f.views ?? []).flatMap((v) => v.needs ?? []))]);
    for (const list of [this.families, this.endpoints, this.coreTables, this.tables, this.alwaysInUse]) Object.freeze(list);
    Object.freeze(this);
  }

  // ---- endpoints ----------------------------------------------------------------------------------------------

  /** An endpoint by id; an old id finds the endpoint it is now. */
  findEndpoint(id: string): EndpointDef | undefined {
    return this.endpointById.get(id) ?? this.endpointById.get(this.aliases.get(id) ?? '');
  }

  endpoint(id: string): EndpointDef {
    const def = this.findEndpoint(id);
    if (!def) throw new Error(`unknown endpoint '${id}'; known: ${this.endpoints.map((e) => e.id).join(', ')}`);
    return def;
  }

  /** The id an endpoint has now: an old id's new one, any other id as it is. */
  currentEndpointId(id: string): string {
    return this.aliases.get(id) ?? id;
  }

  endpointsOfKind(kind: EndpointKind): EndpointDef[] {
    return this.endpoints.filter((e) => e.kind === kind);
  }

  /** The ids a task of this endpoint may be stored under: its own and its old one (warehouse rows of older versions). */
  storedEndpointIds(id: string): string[] {
    const def = this.findEndpoint(id);
    return def?.formerly ? [def.id, def.formerly] : [def?.id ?? id];
  }

  /** The request fields a task's `data` echoes: those its endpoint declares, or for a getter its posting endpoint's too. */
  echoedFields(def: EndpointDef): ReadonlySet<string> {
    let fields = this.echoes.get(def.id);
    if (!fields) {
      const post = def.postId ? this.findEndpoint(def.postId) : undefined;
      fields = new Set([...Object.keys(def.fields ?? {}), ...Object.keys(post?.fields ?? {})]);
      this.echoes.set(def.id, fields);
    }
    return fields;
  }

  /**
   * Tables a collected task of this endpoint writes (and so replaces on a reload): `tasks` and its children, plus
   * the family of the result kind's root table (`unknown_results` for an endpoint the catalog does not know).
   * Empty for task_post answers, which are not collected tasks.
   */
  tablesOf(endpointId: string): readonly string[] {
    let names = this.tablesOfEndpoint.get(endpointId);
    if (!names) {
      const kind = this.findEndpoint(endpointId)?.result;
      const root = kind ? this.rootTableFor(kind)?.name ?? 'unknown_results' : 'unknown_results';
      names = kind === 'task_created' ? [] : [...this.familyOf('tasks'), ...this.familyOf(root)].map((t) => t.name);
      this.tablesOfEndpoint.set(endpointId, names);
    }
    return names;
  }

  // ---- tables -------------------------------------------------------------------------------------------------

  table(name: string): TableDef {
    const t = this.tableByName.get(name);
    if (!t) throw new Error(`unknown table '${name}'`);
    return t;
  }

  childrenOf(name: string): readonly TableDef[] {
    return this.children.get(name) ?? [];
  }

  /** A table's place in the catalog's order; undefined for a name it does not know. */
  position(name: string): number | undefined {
    return this.tableOrder.get(name);
  }

  /** The named tables of the catalog, in its order (names it does not know left out). */
  inOrder(names: Iterable<string>): TableDef[] {
    const known = [...new Set(names)].filter((n) => this.position(n) !== undefined);
    return known.sort((a, b) => this.position(a)! - this.position(b)!).map((n) => this.tableByName.get(n)!);
  }

  /** The root table for a result kind (undefined for kinds without rows: task_created). */
  rootTableFor(kind: ResultKind): TableDef | undefined {
    return this.rootByKind.get(kind);
  }

  /** A table and all its descendants: the tables a task of that kind writes (and replaces on reload). */
  familyOf(root: string): TableDef[] {
    const out: TableDef[] = [];
    const walk = (name: string) => {
      out.push(this.table(name));
      for (const ch of this.childrenOf(name)) walk(ch.name);
    };
    walk(root);
    return out;
  }

  /**
   * Whether a table comes into use with its first row rather than with its result kind: an item type's own table
   * (`item` rows) and the tables below it. Most item types of a polymorphic list are absent from any one answer.
   */
  inUseOnFirstRow(t: TableDef): boolean {
    for (let cur: TableDef | undefined = t; cur; cur = cur.parent ? this.tableByName.get(cur.parent) : undefined) {
      if (cur.source?.kind === 'item') return true;
    }
    return false;
  }

  /** Self-check, run by tests: unique names, parents exist, child naming `parent__child`, columns unique. */
  problems(): string[] {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const t of this.tables) {
      if (seen.has(t.name)) problems.push(`${t.name}: declared twice`);
      seen.add(t.name);
      if (t.parent && !this.tableByName.has(t.parent)) problems.push(`${t.name}: parent ${t.parent} is not declared`);
      if (t.parent && t.parent !== 'tasks' && !t.name.startsWith(`${t.parent}__`)) problems.push(`${t.name}: a child table is named <parent>__<child>`);
      if (t.parent && !t.source) problems.push(`${t.name}: a child table needs a source`);
      const cols = new Set<string>();
      for (const col of allColumns(t)) {
        if (cols.has(col.name)) problems.push(`${t.name}.${col.name}: declared twice`);
        cols.add(col.name);
      }
    }
    return problems;
  }
}
