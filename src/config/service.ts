/**
 * Which service a run talks to, and the rules that keep sandbox data and live data apart: each has its own data
 * folder by default, a folder that holds one kind is never written by the other, and a live set-up never falls
 * back to the sandbox by accident (a missing SEO_ETL_API_BASE_URL in cron's environment did, silently).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../exit.js';

export type ServiceKind = 'sandbox' | 'live';

export interface Service {
  kind: ServiceKind;
  /** For people: "the embedded sandbox", "the sandbox at http://127.0.0.1:8090", "api.dataforseo.com". */
  label: string;
}

/** The data folder of each kind when warehouse.dir is left empty. */
export const DEFAULT_DATA_DIRS: Readonly<Record<ServiceKind, string>> = { live: 'data', sandbox: path.join('data', 'sandbox') };

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/**
 * The live service is never on this machine: a loopback address is `seo-etl sandbox` (or a test's double), and the
 * service's own sandbox lives at sandbox.<its domain> (docs/api-live.md, "Sandbox").
 */
export function serviceOf(baseUrl: string): Service {
  if (baseUrl === 'sandbox') return { kind: 'sandbox', label: 'the embedded sandbox' };
  const url = new URL(baseUrl);
  if (LOOPBACK.test(url.hostname)) return { kind: 'sandbox', label: `the sandbox at ${url.origin}` };
  if (url.hostname.split('.')[0] === 'sandbox') return { kind: 'sandbox', label: `the service's sandbox at ${url.host}` };
  return { kind: 'live', label: url.host };
}

/** Whether a base URL (an environment variable's value, maybe unset or malformed) names a sandbox. */
export function isSandboxAddress(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  try { return serviceOf(baseUrl).kind === 'sandbox'; } catch { return false; }
}

/** The data folder for a configured warehouse.dir: as given, or by default the service kind's own. */
export function dataDirFor(dir: string, baseUrl: string): string {
  return dir === '' ? DEFAULT_DATA_DIRS[serviceOf(baseUrl).kind] : dir;
}

/** Words for a cost: sandbox money is what the live service would have charged, and nobody paid it. */
export function costNote(service: Service): string {
  return service.kind === 'sandbox' ? ' (sandbox money: nothing was charged)' : '';
}

export interface ServiceGuard {
  service: Service;
  /** api.base_url as the configuration files set it, without the environment. */
  fileBaseUrl: string;
  env: NodeJS.ProcessEnv;
  /** `--sandbox`: the user asked for the sandbox, whatever the configuration names. */
  sandboxOnPurpose: boolean;
}

/** Refuses (exit 2) a run that would use a sandbox where the set-up names or implies the live service. */
export function refuseAccidentalSandbox(g: ServiceGuard): void {
  if (g.service.kind !== 'sandbox' || g.sandboxOnPurpose) return;
  const hint = 'pass --sandbox to run against a sandbox on purpose';
  if (g.fileBaseUrl !== 'sandbox' && serviceOf(g.fileBaseUrl).kind === 'live') {
    throw new UserError(
      `the configuration names the live service (api.base_url: ${g.fileBaseUrl}), but SEO_ETL_API_BASE_URL=${g.env.SEO_ETL_API_BASE_URL} ` +
        `would run against ${g.service.label}: nothing was posted; unset the variable to use the live service, or ${hint}`,
    );
  }
  const credentials = ['SEO_ETL_LOGIN', 'SEO_ETL_PASSWORD'].filter((v) => g.env[v]);
  if (g.service.label === 'the embedded sandbox' && credentials.length) {
    throw new UserError(
      `${credentials.join(' and ')} ${credentials.length > 1 ? 'are' : 'is'} set for the live service, but api.base_url is 'sandbox' ` +
        `(SEO_ETL_API_BASE_URL is ${g.env.SEO_ETL_API_BASE_URL === undefined ? 'not set' : `'${g.env.SEO_ETL_API_BASE_URL}'`}): nothing was posted; ` +
        `set SEO_ETL_API_BASE_URL to the service's address (cron: in the file the crontab line sources), or ${hint}`,
    );
  }
}

/** The file in a data folder that says which kind of service its data came from, and from whom each run. */
const BINDING = 'service.json';

interface Binding { kind: ServiceKind; runs: Record<string, string> }

export function readBinding(dataDir: string): Binding | undefined {
  const file = path.join(dataDir, BINDING);
  if (existsSync(file)) {
    let b: Partial<Binding> | undefined;
    try { b = JSON.parse(readFileSync(file, 'utf8')) as Partial<Binding>; } catch { b = undefined; }
    if (b?.kind === 'sandbox' || b?.kind === 'live') return { kind: b.kind, runs: b.runs ?? {} };
    throw new UserError(`${file}: not the record of which service this folder's data came from (it must hold {"kind": "live"} or {"kind": "sandbox"}); restore it or remove it if you know which`);
  }
  // A folder from before this file: the embedded sandbox's task journal there says what it holds.
  if (existsSync(path.join(dataDir, 'sandbox', 'tasks.ndjson'))) return { kind: 'sandbox', runs: {} };
  return undefined;
}

/** The service a run of a data folder talked to, for `status` and `tables` (undefined for a folder that never said). */
export function serviceOfRun(dataDir: string, runId: string): Service | undefined {
  const b = readBinding(dataDir);
  if (!b) return undefined;
  return { kind: b.kind, label: b.runs[runId] ?? (b.kind === 'sandbox' ? 'a sandbox' : 'the live service') };
}

/** "the embedded sandbox (sandbox data: nothing was charged)", "api.dataforseo.com (the live service)". */
export function describeService(s: Service): string {
  return s.kind === 'sandbox' ? `${s.label} (sandbox data: nothing was charged)` : `${s.label} (the live service)`;
}

/**
 * Binds a data folder to the run's kind of service, or refuses the run (exit 2) when the folder holds the other
 * kind's data. Called with the run lock held, before the warehouse is opened.
 */
export function bindDataFolder(dataDir: string, service: Service): void {
  const b = readBinding(dataDir);
  if (b && b.kind !== service.kind) {
    const holds = b.kind === 'sandbox' ? 'sandbox data' : "the live service's data";
    throw new UserError(
      `${dataDir} holds ${holds}, and this run talks to ${service.label}: sandbox and live data never share a warehouse; ` +
        `move that data away, or set warehouse.dir (SEO_ETL_WAREHOUSE_DIR) to another folder (by default live data goes to ${DEFAULT_DATA_DIRS.live}/, sandbox data to ${DEFAULT_DATA_DIRS.sandbox}/)`,
    );
  }
  if (!b) writeBinding(dataDir, { kind: service.kind, runs: {} });
}

/** Records which service a run talked to. */
export function noteRunService(dataDir: string, runId: string, service: Service): void {
  const b = readBinding(dataDir) ?? { kind: service.kind, runs: {} };
  // A run resumed against another sandbox talked to both.
  const before = b.runs[runId]?.split(', then ') ?? [];
  if (before.at(-1) !== service.label) writeBinding(dataDir, { kind: b.kind, runs: { ...b.runs, [runId]: [...before, service.label].join(', then ') } });
}

function writeBinding(dataDir: string, next: Binding): void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, BINDING);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(next, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

/**
 * The other kind's default data folder when it holds runs, so that `status` run without the live service's
 * environment (or without --sandbox) points at them instead of looking empty.
 */
export function otherDataFolder(root: string, config: { api: { base_url: string }; warehouse: { dir: string } }): { kind: ServiceKind; dir: string; how: string } | undefined {
  const kind = serviceOf(config.api.base_url).kind;
  if (path.resolve(root, config.warehouse.dir) !== path.resolve(root, DEFAULT_DATA_DIRS[kind])) return undefined;
  const other: ServiceKind = kind === 'sandbox' ? 'live' : 'sandbox';
  const dir = path.resolve(root, DEFAULT_DATA_DIRS[other]);
  if (readBinding(dir)?.kind !== other) return undefined;
  return { kind: other, dir, how: other === 'sandbox' ? 'seo-etl --sandbox status' : 'seo-etl status with SEO_ETL_API_BASE_URL set (source the file cron uses)' };
}
