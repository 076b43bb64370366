/**
 * The endpoint catalog: every endpoint of every family in the registry (src/families/registry.ts), defined once in
 * its family's folder. The client, the local validator, the planner's pricing and the embedded sandbox all read
 * these entries; nothing else in the project spells a path or a request rule.
 */
import { PATH_TOKENS, type EndpointDef, type EndpointKind, type Engines, type EngineToken } from '../catalog/endpoint.js';
import { CATALOG } from '../families/index.js';

export const ENDPOINTS: readonly EndpointDef[] = CATALOG.endpoints;

/** Old endpoint ids and the ids they are now (each endpoint's `formerly`), derived from the declarations. */
export const ENDPOINT_ALIASES: ReadonlyMap<string, string> = CATALOG.aliases;

/** The id an endpoint has now: an old id's new one, any other id as it is. */
export function currentEndpointId(id: string): string {
  return CATALOG.currentEndpointId(id);
}

/** The ids a task of this endpoint may be stored under: its own and its old one (warehouse rows of older versions). */
export function storedEndpointIds(id: string): string[] {
  return CATALOG.storedEndpointIds(id);
}

/**
 * A SQL expression of `column` (an endpoint id) with every old id mapped to its new one: views read rows older
 * versions stored under old ids as they read new rows.
 */
export function currentEndpointSql(column: string): string {
  if (!ENDPOINT_ALIASES.size) return column;
  const whens = [...ENDPOINT_ALIASES].map(([old, now]) => `WHEN '${old}' THEN '${now}'`).join(' ');
  return `CASE ${column} ${whens} ELSE ${column} END`;
}

/** An endpoint by id; an old id (ENDPOINT_ALIASES) finds the endpoint it is now. */
export function endpoint(id: string): EndpointDef {
  return CATALOG.endpoint(id);
}

export function findEndpoint(id: string): EndpointDef | undefined {
  return CATALOG.findEndpoint(id);
}

/** The concrete path of an endpoint for the configured engines (and a task id where the path takes one). */
export function resolvePath(def: EndpointDef, engines: Engines, params: { id?: string } = {}): string {
  return def.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    if (name === 'id') {
      if (!params.id) throw new Error(`${def.id}: path needs a task id`);
      return encodeURIComponent(params.id);
    }
    return engines[name as EngineToken];
  });
}

export interface PathMatch {
  def: EndpointDef;
  id?: string;
  /** The engine segment as it appeared in the path (equal to the configured one unless matched with anyEngine). */
  engineSegment?: string;
}

const TOKEN_SEGMENT = new Set(PATH_TOKENS.map((t) => `{${t}}`));

/**
 * Which catalog endpoint a method and path belong to. With `anyEngine`, a path-token segment matches any name
 * (ingest of files saved from the live service, which says `google` where the sandbox may say `engine_a`); a
 * path that matches with the configured segments wins over one that matches only with any name.
 */
export function matchPath(method: string, rawPath: string, engines: Engines | null, opts: { anyEngine?: boolean } = {}): PathMatch | undefined {
  const pathOnly = rawPath.split('?')[0].replace(/\/+$/, '');
  const segments = (pathOnly.startsWith('/') ? pathOnly : `/${pathOnly}`).split('/');
  const pass = (loose: boolean): PathMatch | undefined => {
    for (const def of ENDPOINTS) {
      if (def.method !== method.toUpperCase()) continue;
      const tpl = def.path.split('/');
      if (tpl.length !== segments.length) continue;
      let id: string | undefined;
      let engineSegment: string | undefined;
      let ok = true;
      for (let i = 0; i < tpl.length && ok; i++) {
        const t = tpl[i];
        const s = segments[i];
        if (t === '{id}') {
          try { id = decodeURIComponent(s); } catch { id = s; }
          ok = s.length > 0;
        } else if (TOKEN_SEGMENT.has(t)) {
          engineSegment = s;
          ok = loose ? /^[a-z0-9_]+$/.test(s) : s === engines![t.slice(1, -1) as EngineToken];
        } else ok = t === s;
      }
      if (ok) return { def, id, engineSegment };
    }
    return undefined;
  };
  return (engines ? pass(false) : undefined) ?? (opts.anyEngine || !engines ? pass(true) : undefined);
}

/** Catalog entries of one kind, for example every task_post endpoint. */
export function endpointsOfKind(kind: EndpointKind): EndpointDef[] {
  return CATALOG.endpointsOfKind(kind);
}
