/**
 * Where a measured process's main thread spends its time: a V8 CPU profile (the inspector's Profiler, taken in the
 * bench's child) attributed to named categories by source location, so that a figure missing its goal says what
 * was measured as its limit.
 *
 * Each sample's self time goes to the innermost frame of its stack that a rule names: DuckDB's node-api (its native
 * calls show as the self time of the node-api function making them), the appender, the normalizer, zlib, HTTP, the
 * archive, the ledger. `JSON.parse` is a builtin without a frame of its own: its time is the self time of the line
 * calling it, so a sample is JSON.parse when the source line it was taken on calls `JSON.parse(`. What no rule
 * names (the job's other stages, V8's own work, module loading) is `other`.
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { fileURLToPath } from 'node:url';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber?: number;
  columnNumber?: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  /** Samples taken in this node, by 1-based source line (V8 adds them for JS functions). */
  positionTicks?: { line: number; ticks: number }[];
}

/** The inspector's `Profiler.Profile` (also what `node --cpu-prof` writes). Times in microseconds. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export const CATEGORIES = ['json_parse', 'normalizer', 'appender', 'duckdb', 'gzip', 'http', 'archive', 'ledger', 'gc', 'other', 'idle'] as const;
export type Category = (typeof CATEGORIES)[number];

export const CATEGORY_LABELS: Record<Category, string> = {
  json_parse: 'JSON.parse',
  normalizer: 'normalizer',
  appender: 'appender',
  duckdb: 'DuckDB',
  gzip: 'gzip',
  http: 'HTTP',
  archive: 'archive',
  ledger: 'ledger',
  gc: 'GC',
  other: 'other',
  idle: 'idle',
};

interface Rule {
  category: Category;
  url?: RegExp;
  name?: RegExp;
}

/** First match wins, innermost frame first. */
const RULES: Rule[] = [
  { category: 'gc', name: /^\(garbage collector\)$/ },
  { category: 'idle', name: /^\(idle\)$/ },
  { category: 'json_parse', name: /^parse$/, url: /^$/ },
  { category: 'duckdb', url: /@duckdb\// },
  { category: 'appender', url: /\/(src|dist)\/load\/(append|chunk-fill|column-encode)\.[jt]s$/ },
  { category: 'normalizer', url: /\/(src|dist)\/normalize\// },
  { category: 'gzip', url: /^node:zlib$|\/zlib\.js$/ },
  { category: 'archive', url: /\/(src|dist)\/archive\// },
  { category: 'ledger', url: /\/(src|dist)\/ledger\// },
  { category: 'http', url: /undici|^node:_http|^node:http|^node:net$|^node:internal\/http|\/ky\/|\/(src|dist)\/api\/client\.[jt]s$|\/(src|dist)\/collect\/webhook\.[jt]s$/ },
];

function ruleFor(frame: CallFrame): Category | undefined {
  for (const r of RULES) {
    if (r.url && !r.url.test(frame.url)) continue;
    if (r.name && !r.name.test(frame.functionName)) continue;
    return r.category;
  }
  return undefined;
}

/** The text of a 1-based source line of a script, or undefined when it cannot be read. */
export type LineText = (url: string, line: number) => string | undefined;

/** Reads scripts from disk (file: URLs and absolute paths), once each. */
export function fileLines(): LineText {
  const cache = new Map<string, string[] | null>();
  return (url, line) => {
    let lines = cache.get(url);
    if (lines === undefined) {
      try {
        const file = url.startsWith('file:') ? fileURLToPath(url) : url.startsWith('/') ? url : null;
        lines = file ? readFileSync(file, 'utf8').split('\n') : null;
      } catch {
        lines = null;
      }
      cache.set(url, lines);
    }
    return lines?.[line - 1];
  };
}

export interface Breakdown {
  /** The profile's span, ms. */
  totalMs: number;
  ms: Record<Category, number>;
  /** The functions with the most self time in each category (`name file:line`), ms. */
  top: Record<Category, { where: string; ms: number }[]>;
}

/**
 * Lines between the code V8 ran and the file on disk: a loader that transforms on the fly (tsx, vitest) may add a
 * line or two at the top. The function's own line is found near where V8 says it starts.
 */
function lineShift(f: CallFrame, lineText: LineText): number {
  if (!f.functionName || f.lineNumber === undefined || f.lineNumber < 0) return 0;
  for (const k of [0, -1, 1, -2, 2, -3, 3]) if (lineText(f.url, f.lineNumber + 1 + k)?.includes(f.functionName)) return k;
  return 0;
}

const callsJsonParse = (text: string | undefined) => text !== undefined && /JSON\.parse\(/.test(text);

/**
 * Attributes every sample's self time to a category (see the module comment). `window: 'loading'` counts only the
 * stretch from the first to the last sample in the normalizer or the appender (an archive load normalizes on a
 * worker thread and appends here): the steady state of a run, without its start (planning, posting, the first wait
 * for results) and its end (publishing).
 */
export function attributeProfile(p: CpuProfile, lineText: LineText = fileLines(), window: 'whole' | 'loading' = 'whole'): Breakdown {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Each node's self time split into parts: JSON.parse by line, the rest to the category its stack names.
  const parts = new Map<number, { category: Category; share: number; at: string }[]>();
  const partsOf = (node: ProfileNode) => {
    let out = parts.get(node.id);
    if (out) return out;
    out = [];
    let rest = 1;
    const ticks = node.positionTicks ?? [];
    const total = ticks.reduce((a, x) => a + x.ticks, 0);
    if (total && node.callFrame.url) {
      const shift = lineShift(node.callFrame, lineText);
      for (const x of ticks) {
        if (!callsJsonParse(lineText(node.callFrame.url, x.line + shift))) continue;
        out.push({ category: 'json_parse', share: x.ticks / total, at: whereOf(node, x.line + shift) });
        rest -= x.ticks / total;
      }
    }
    if (rest > 1e-9) {
      let category: Category | undefined;
      for (let n: ProfileNode | undefined = node; n && !category; n = byId.get(parent.get(n.id) ?? -1)) category = ruleFor(n.callFrame);
      out.push({ category: category ?? 'other', share: rest, at: whereOf(node, undefined, byId.get(parent.get(node.id) ?? -1)) });
    }
    parts.set(node.id, out);
    return out;
  };
  let first = 0;
  let last = p.samples.length - 1;
  if (window === 'loading') {
    const inNormalizer = (i: number) => {
      const node = byId.get(p.samples[i]);
      return node !== undefined && partsOf(node).some((x) => x.category === 'normalizer' || x.category === 'appender');
    };
    while (first <= last && !inNormalizer(first)) first++;
    while (last >= first && !inNormalizer(last)) last--;
  }
  const ms = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
  const where = new Map<string, { category: Category; where: string; ms: number }>();
  let span = 0;
  for (let i = first; i <= last; i++) {
    const node = byId.get(p.samples[i]);
    const t = (p.timeDeltas[i] ?? 0) / 1000;
    span += t;
    if (!node) continue;
    for (const x of partsOf(node)) {
      ms[x.category] += t * x.share;
      const key = `${x.category} ${x.at}`;
      const w = where.get(key) ?? { category: x.category, where: x.at, ms: 0 };
      w.ms += t * x.share;
      where.set(key, w);
    }
  }
  const top = Object.fromEntries(CATEGORIES.map((c) => [c, [] as { where: string; ms: number }[]])) as Breakdown['top'];
  for (const w of [...where.values()].sort((a, b) => b.ms - a.ms)) if (top[w.category].length < 3) top[w.category].push({ where: w.where, ms: w.ms });
  return { totalMs: window === 'whole' ? (p.endTime - p.startTime) / 1000 : span, ms, top };
}

/** `name file:line`; a native function without a name is named after its caller. */
function whereOf(node: ProfileNode, line?: number, caller?: ProfileNode): string {
  const f = node.callFrame;
  if (!f.url) return `${f.functionName || `${caller?.callFrame.functionName || '(anonymous)'}>native`} (native)`;
  return `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${line ?? (f.lineNumber ?? 0) + 1}`;
}

function shortUrl(url: string): string {
  const m = /\/((?:src|dist)\/.*|node_modules\/.*)$/.exec(url);
  return m ? m[1].replace(/^node_modules\//, '') : url.replace(/^file:\/\//, '');
}

const pct = (part: number, whole: number) => `${whole > 0 ? Math.round((100 * part) / whole) : 0}%`;

/** CPU the process used beside this thread's busy time, ms. */
const otherThreadsMs = (b: Breakdown, processCpuMs: number) => Math.max(0, processCpuMs - (b.totalMs - b.ms.idle));

/**
 * "main thread busy 72% of 16.3 s: normalizer 21% (objectRow 9%), DuckDB 16%, ..., idle 28%": shares of the
 * profile's span, largest first; categories under 1% left out; a category of a tenth or more names its largest
 * function.
 */
export function describeBreakdown(b: Breakdown): string {
  const parts = CATEGORIES.filter((c) => c !== 'idle' && b.ms[c] >= b.totalMs / 100)
    .sort((x, y) => b.ms[y] - b.ms[x])
    .map((c) => {
      const first = b.top[c][0];
      const which = first && !first.where.startsWith('(') && b.ms[c] >= b.totalMs / 10 ? ` (${first.where.split(' ')[0]} ${pct(first.ms, b.totalMs)})` : '';
      return `${CATEGORY_LABELS[c]} ${pct(b.ms[c], b.totalMs)}${which}`;
    });
  return `main thread busy ${pct(b.totalMs - b.ms.idle, b.totalMs)} of ${(b.totalMs / 1000).toFixed(1)} s: ${parts.join(', ')}, idle ${pct(b.ms.idle, b.totalMs)}`;
}

/** Both breakdowns of a profile and the CPU its process used while it ran, as a measured child reports them. */
export interface ProfileReport {
  whole: Breakdown;
  loading: Breakdown;
  processCpuMs: number;
}

export function profileReport(p: CpuProfile, processCpuMs: number, lineText: LineText = fileLines()): ProfileReport {
  return { whole: attributeProfile(p, lineText), loading: attributeProfile(p, lineText, 'loading'), processCpuMs };
}

/** The limit as a figure's `how` states it: the steady state's breakdown, then the whole run's busy share and CPU. */
export function describeLimit(r: ProfileReport | undefined): string {
  if (!r) return 'not profiled';
  const busy = r.whole.totalMs - r.whole.ms.idle;
  return `while results were loaded (${(r.loading.totalMs / 1000).toFixed(1)} s of the profiled ${(r.whole.totalMs / 1000).toFixed(1)} s) ${describeBreakdown(r.loading)}; over the whole run the main thread was busy ${pct(busy, r.whole.totalMs)}, and the process used ${(r.processCpuMs / 1000).toFixed(1)} s of CPU, ${(otherThreadsMs(r.whole, r.processCpuMs) / 1000).toFixed(1)} s of it on other threads (DuckDB's, the thread pool's, an archive load's worker)`;
}

/** A Markdown table, one row per profiled run: each category's share of the run's profile. */
export function breakdownTable(rows: { name: string; b: Breakdown; processCpuMs?: number }[]): string {
  const head = ['run', 'profiled s', 'main thread busy', ...CATEGORIES.map((c) => CATEGORY_LABELS[c]), 'CPU on other threads s'];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(head),
    line(head.map(() => '---')),
    ...rows.map(({ name, b, processCpuMs }) => line([
      name,
      (b.totalMs / 1000).toFixed(1),
      pct(b.totalMs - b.ms.idle, b.totalMs),
      ...CATEGORIES.map((c) => pct(b.ms[c], b.totalMs)),
      processCpuMs === undefined ? '' : (otherThreadsMs(b, processCpuMs) / 1000).toFixed(1),
    ])),
  ].join('\n');
}

/** The table's rows for profiled runs: the steady state of each, then the whole run with its CPU. */
export function reportRows(name: string, r: ProfileReport | undefined): { name: string; b: Breakdown; processCpuMs?: number }[] {
  return r ? [{ name: `${name}, while loading`, b: r.loading }, { name: `${name}, whole run`, b: r.whole, processCpuMs: r.processCpuMs }] : [];
}

/** Starts the inspector's sampling profiler on this thread; `stop()` ends it and returns the profile. */
export async function startProfiler(intervalUs = 1000): Promise<{ stop: () => Promise<CpuProfile> }> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: intervalUs });
  await post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await post<{ profile: CpuProfile }>('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}
