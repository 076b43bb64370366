/**
 * The pipeline's `alerts:` section: which tracked domains and run outcomes to watch, and where to say so. Read on
 * the YAML nodes like the rest of the pipeline, so every problem names its file:line before anything is posted;
 * the rules are evaluated after each run by src/report/alerts.
 */
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { Config } from '../config/index.js';
import type { Place, Target } from './types.js';
import { join, kindOf, type SchemaReader } from './schema.js';
import { suggest } from '../config/suggest.js';

/** One rule; its `id` names it in alerts and in the record of what was sent (`position_drop>3`, `leaves_top:10`). */
export type AlertRule =
  | { kind: 'position_drop'; positions: number; id: string }
  | { kind: 'leaves_top'; top: number; id: string }
  | { kind: 'enters_top'; top: number; id: string }
  | { kind: 'run_failed'; id: string }
  | { kind: 'budget_stopped'; id: string }
  | { kind: 'cost_above'; usd: number; id: string }
  | { kind: 'ai_citation_gained'; id: string }
  | { kind: 'ai_citation_lost'; id: string };

/** Where alerts go: a Slack-compatible webhook (its address, or the variable holding it) or email addresses. */
export type AlertChannel =
  | { kind: 'webhook'; url: string; shown: string }
  | { kind: 'email'; to: string[] };

export interface AlertsSpec {
  /** Tracked domains, lower-case and without `www.`, as the SERP views write them; a subdomain counts for its domain.
   *  `alerts.domains` when written, else the domains of the pipeline's `targets:`. */
  domains: string[];
  /** `alerts.domains` is written: the domains are its own, not the targets' (src/report/tracked.ts reads them apart). */
  ownDomains: boolean;
  /** The pipeline's targets (`targets:`) whose AI Overview citations the ai_citation rules watch. */
  targets: string[];
  rules: AlertRule[];
  channels: AlertChannel[];
  at: Place;
}

export const ALERT_RULES = ['position_drop', 'leaves_top', 'enters_top', 'ai_citation_gained', 'ai_citation_lost', 'run_failed', 'budget_stopped', 'cost_above_usd'] as const;
/** Rules about the AI Overview citations of the pipeline's targets (v_serp_ai_visibility): they need `targets:`. */
const TARGET_RULES = new Set(['ai_citation_gained', 'ai_citation_lost']);
/** Rules about tracked domains: they need `domains`. */
const DOMAIN_RULES = new Set(['position_drop', 'leaves_top', 'enters_top']);
const ALERT_KEYS = ['domains', 'rules', 'send_to'];
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
const ENV_NAME = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;

export const normalizeDomain = (d: string) => d.trim().toLowerCase().replace(/^www\./, '');

/** Reads `alerts:`; issues go on the reader. `env` resolves `webhook: $NAME`; `targets` are the pipeline's `targets:`. */
export function readAlerts(r: SchemaReader, node: Node | null, at: Place, config: Config, env: NodeJS.ProcessEnv, targets: readonly Target[] = []): AlertsSpec | undefined {
  if (!r.expectMap(node, at, 'alerts', 'a mapping with rules and send_to')) return undefined;
  const e = r.entries(node, 'alerts', ALERT_KEYS, ['rules', 'send_to']);
  const domains: string[] = [];
  const domainsEntry = e.get('domains');
  if (domainsEntry) {
    const seq = domainsEntry.value;
    if (!isSeq(seq) || seq.items.length === 0) r.issue(r.place(seq, domainsEntry.keyPlace), 'alerts.domains', `must be a non-empty list of domains (got ${kindOf(seq)})`);
    else seq.items.forEach((item, i) => {
      const d = r.string(r.resolve(item), domainsEntry.keyPlace, `alerts.domains[${i}]`);
      if (d === undefined) return;
      if (!DOMAIN.test(normalizeDomain(d))) r.issue(r.place(item, domainsEntry.keyPlace), `alerts.domains[${i}]`, `must be a domain such as example.com (got ${JSON.stringify(d)})`);
      else domains.push(normalizeDomain(d));
    });
  }

  const rules: AlertRule[] = [];
  const rulesEntry = e.get('rules');
  if (rulesEntry) {
    const seq = rulesEntry.value;
    if (!isSeq(seq) || seq.items.length === 0) r.issue(r.place(seq, rulesEntry.keyPlace), 'alerts.rules', `must be a non-empty list of rules such as - position_drop: 3 (got ${kindOf(seq)})`);
    else seq.items.forEach((item, i) => {
      const rule = readRule(r, r.resolve(item), r.place(item, rulesEntry.keyPlace), `alerts.rules[${i}]`);
      if (!rule) return;
      if (DOMAIN_RULES.has(rule.kind) && !domainsEntry && !targets.length) r.issue(r.place(item, rulesEntry.keyPlace), `alerts.rules[${i}]`, `${rule.kind} watches tracked domains: list them in alerts.domains, or declare targets:`);
      if (TARGET_RULES.has(rule.kind) && !targets.length) r.issue(r.place(item, rulesEntry.keyPlace), `alerts.rules[${i}]`, `${rule.kind} watches the AI Overview citations of tracked targets: declare targets: and name one in the SERP steps (target:)`);
      if (rules.some((x) => x.id === rule.id)) r.issue(r.place(item, rulesEntry.keyPlace), `alerts.rules[${i}]`, `the same rule twice (${rule.id})`);
      else rules.push(rule);
    });
  }

  const channels: AlertChannel[] = [];
  const sendEntry = e.get('send_to');
  if (sendEntry) {
    const seq = sendEntry.value;
    if (!isSeq(seq) || seq.items.length === 0) r.issue(r.place(seq, sendEntry.keyPlace), 'alerts.send_to', `must be a non-empty list of - webhook: <address or $VARIABLE> and - email: [addresses] (got ${kindOf(seq)})`);
    else seq.items.forEach((item, i) => {
      const ch = readChannel(r, r.resolve(item), r.place(item, sendEntry.keyPlace), `alerts.send_to[${i}]`, config, env);
      if (ch) channels.push(ch);
    });
  }
  // One list of tracked domains: the alerts' own when written, else the targets'.
  const tracked = domainsEntry ? domains : [...new Set(targets.flatMap((t) => t.domains.map(normalizeDomain)))];
  return { domains: tracked, ownDomains: Boolean(domainsEntry), targets: targets.map((t) => t.name), rules, channels, at: r.place(node, at) };
}

/** A rule is a one-key mapping: `- position_drop: 3`, `- run_failed: true`. */
function readRule(r: SchemaReader, node: Node | null, at: Place, kp: string): AlertRule | undefined {
  if (!isMap(node) || node.items.length !== 1) {
    r.issue(r.place(node, at), kp, `must be one rule such as position_drop: 3; rules: ${ALERT_RULES.join(', ')} (got ${kindOf(node)})`);
    return undefined;
  }
  const pair = node.items[0];
  const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
  const keyPlace = r.place(pair.key, at);
  const value = r.resolve(pair.value);
  const key = join(kp, name);
  switch (name) {
    case 'position_drop': {
      const n = r.number(value, keyPlace, key, { integer: true, min: 1 });
      return n === undefined ? undefined : { kind: 'position_drop', positions: n, id: `position_drop>${n}` };
    }
    case 'leaves_top':
    case 'enters_top': {
      const n = r.number(value, keyPlace, key, { integer: true, min: 1, max: 700 });
      return n === undefined ? undefined : { kind: name, top: n, id: `${name}:${n}` };
    }
    case 'cost_above_usd': {
      const n = r.number(value, keyPlace, key, { min: 0 });
      return n === undefined ? undefined : { kind: 'cost_above', usd: n, id: `cost_above:${n}` };
    }
    case 'run_failed':
    case 'budget_stopped':
    case 'ai_citation_gained':
    case 'ai_citation_lost': {
      if (!isScalar(value) || value.value !== true) {
        r.issue(r.place(value, keyPlace), key, `must be true (got ${kindOf(value)}); leave the rule out to turn it off`);
        return undefined;
      }
      return { kind: name, id: name };
    }
    default:
      r.issue(keyPlace, key, `unknown rule${suggest(name, ALERT_RULES)}; rules: ${ALERT_RULES.join(', ')}`);
      return undefined;
  }
}

function readChannel(r: SchemaReader, node: Node | null, at: Place, kp: string, config: Config, env: NodeJS.ProcessEnv): AlertChannel | undefined {
  if (!isMap(node) || node.items.length !== 1) {
    r.issue(r.place(node, at), kp, `must be - webhook: <address or $VARIABLE> or - email: [addresses] (got ${kindOf(node)})`);
    return undefined;
  }
  const pair = node.items[0];
  const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
  const keyPlace = r.place(pair.key, at);
  const value = r.resolve(pair.value);
  const key = join(kp, name);
  if (name === 'webhook') {
    const v = r.string(value, keyPlace, key);
    if (v === undefined) return undefined;
    // A webhook's path is its secret: the file may name the variable that holds it instead.
    const variable = ENV_NAME.exec(v)?.[1];
    const url = variable ? env[variable] : v;
    const what = variable ? `environment variable ${variable}` : 'the address';
    if (!url) {
      r.issue(r.place(value, keyPlace), key, `environment variable ${variable} is not set`);
      return undefined;
    }
    if (!isHttpUrl(url)) {
      r.issue(r.place(value, keyPlace), key, `${what} must be an http:// or https:// address${variable ? '' : ', or $VARIABLE naming the variable that holds one'}`);
      return undefined;
    }
    return { kind: 'webhook', url, shown: variable ? `$${variable}` : new URL(url).origin };
  }
  if (name === 'email') {
    const items = isSeq(value) ? value.items.map((i) => r.resolve(i)) : [value];
    const to: string[] = [];
    items.forEach((item, i) => {
      const a = r.string(item, keyPlace, isSeq(value) ? `${key}[${i}]` : key);
      if (a === undefined) return;
      if (!EMAIL.test(a)) r.issue(r.place(item, keyPlace), isSeq(value) ? `${key}[${i}]` : key, `must be an email address (got ${JSON.stringify(a)})`);
      else to.push(a);
    });
    if (!to.length) return undefined;
    if (!config.notify.smtp_url) {
      r.issue(keyPlace, key, 'needs an SMTP server: set SEO_ETL_NOTIFY_SMTP_URL (notify.smtp_url), e.g. smtp://user:password@host:587');
      return undefined;
    }
    return { kind: 'email', to };
  }
  r.issue(keyPlace, key, `unknown channel${suggest(name, ['webhook', 'email'])}; channels: webhook, email`);
  return undefined;
}

function isHttpUrl(v: string): boolean {
  try { const u = new URL(v); return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''; } catch { return false; }
}
