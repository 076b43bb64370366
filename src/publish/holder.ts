/**
 * Which data a destination holds. A destination (the PostgreSQL schema, the lake) is shared by whoever points at it,
 * while each data folder is a warehouse of its own: a sandbox run, or a second folder, publishing into the schema
 * dashboards read replaced them wholesale. So each destination records the data folder (and machine) and the kind
 * of service its data came from, and refuses another's publish (exit 2, before anything is sent) unless taken over
 * on purpose with --take-over-destinations.
 *
 * A destination stores the record however suits it (PostgreSQL: a row of `_publish_state`; a lake: an object);
 * the decision is this module's alone.
 */
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { UserError } from '../exit.js';
import type { ServiceKind } from '../config/service.js';

export interface Holder {
  /** The data folder, absolute. */
  dataDir: string;
  /** The machine it is on: the same path on two machines is two warehouses. */
  host: string;
  service: ServiceKind;
}

export const TAKE_OVER_FLAG = '--take-over-destinations';

/** The holder a run of this data folder publishes as. */
export function holderOf(dataDir: string, service: ServiceKind, host = hostname()): Holder {
  let dir = path.resolve(dataDir);
  try { dir = realpathSync(dir); } catch { /* not created yet: as given */ }
  return { dataDir: dir, host, service };
}

/** A holder as stored (JSON), or undefined for anything else (a destination from before the record). */
export function parseHolder(text: string | null | undefined): Holder | undefined {
  if (!text) return undefined;
  try {
    const h = JSON.parse(text) as Partial<Holder>;
    if (typeof h.dataDir === 'string' && typeof h.host === 'string' && (h.service === 'live' || h.service === 'sandbox')) return { dataDir: h.dataDir, host: h.host, service: h.service };
  } catch { /* not a record */ }
  return undefined;
}

export const holderJson = (h: Holder): string => JSON.stringify({ dataDir: h.dataDir, host: h.host, service: h.service });

const describe = (h: Holder) => `${h.service === 'sandbox' ? 'sandbox data' : "the live service's data"} from ${h.dataDir} on ${h.host}`;

/** Why `ours` may not publish to a destination holding `held` (undefined: it may; nothing held yet also may). */
export function holderRefusal(held: Holder | undefined, ours: Holder, destination: string): string | undefined {
  if (!held) return undefined;
  if (held.service === ours.service && held.dataDir === ours.dataDir && held.host === ours.host) return undefined;
  return `${destination} holds ${describe(held)}; this run would publish ${describe(ours)} and replace it. ` +
    `Nothing was sent: point this data folder at another destination (another schema or prefix), or pass ${TAKE_OVER_FLAG} to replace what it holds on purpose`;
}

/** A destination holding another data folder's or service kind's data (exit 2). */
export class DestinationHeldError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}
