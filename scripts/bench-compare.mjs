// The `make bench` sections two commits both have, for both commits in one run: this checkout (built) against an
// older commit, alternating old/new section by section, then one table (figure, old, new, ratio, better/worse).
//
// Usage:  make build && node scripts/bench-compare.mjs [old-commit=528cc50] [--keep] [--sections=limiter,load,jobs,sandbox]
//   The old commit is checked out in a temporary git worktree, installed (npm install) and built, then removed
//   (--keep leaves it, and a later run reuses it). About 20 minutes at a load average of 20 (measured), less on a
//   quiet machine; say the load average with the table. The `how` of every figure that came out worse is printed
//   below it. --sections runs some sections only (a figure to take again); --sections=families compares the
//   full-size families of two commits that both have them (SEO_ETL_COMPARE_FAMILIES=merchant,serp_organic: some).
//
// Sections: limiter and sandbox (each commit's own bench code), jobs (each commit's own code, the old one run at
// this checkout's job sizes so the peak RSS figures compare), load (the nightly's own path on both sides:
// scripts/load-compare.mjs over one archive, `ours` here, `js` for a commit whose nightly took the JS extractor
// beside a SQL route its bench measured, as 528cc50's did), best of the rounds on each side.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);
const newRoot = path.resolve(path.dirname(here), '..');
const imp = (root, rel) => import(pathToFileURL(path.join(root, 'dist', rel)).href);

// Child mode: one section of one checkout, run in that checkout's folder (its config), figures on the last line.
if (process.argv[2] === '--section') {
  const [, , , section, root, dir] = process.argv;
  let figures;
  if (section === 'limiter') {
    const r = await (await imp(root, 'bench/limiter.js')).benchLimiter({ quick: false });
    figures = {
      limiter_utilization: { value: r.limiter_utilization, unit: 'ratio', goal: '>= 0.98', how: r.details },
      rate_limit_answers: { value: r.rate_limit_answers, unit: 'answers', goal: '= 0' },
    };
  } else if (section === 'jobs') {
    figures = await (await imp(root, 'bench/jobs.js')).benchJobs({ root, quick: false, dir, log: () => {} });
  } else if (section === 'families') {
    // Only the families named in SEO_ETL_COMPARE_FAMILIES (all when unset): each takes 20-90 s at full size.
    const only = process.env.SEO_ETL_COMPARE_FAMILIES?.split(',');
    figures = await (await imp(root, 'bench/families.js')).benchFamilies({ root, quick: false, dir, log: () => {} }, only);
  } else if (section === 'sandbox') {
    figures = await (await imp(root, 'bench/sandbox-rps.js')).benchSandboxRps({ root, quick: false, dir });
  } else throw new Error(`bench-compare: no section ${section}`);
  const slim = Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, { value: f.value, unit: f.unit, goal: f.goal, how: f.how }]));
  console.log(JSON.stringify(slim));
  process.exit(0);
}

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const oldRef = args.find((a) => !a.startsWith('--')) ?? '528cc50';
const sections = (args.find((a) => a.startsWith('--sections='))?.slice(11) ?? 'limiter,load,jobs,sandbox').split(',');
const started = Date.now();
const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const git = (...a) => execFileSync('git', ['-C', newRoot, ...a], { encoding: 'utf8' }).trim();
const oldSha = git('rev-parse', '--short', `${oldRef}^{commit}`);
const newSha = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? '+changes' : '');
const log = (line) => console.log(`[${((Date.now() - started) / 60000).toFixed(1)} min, load ${loadavg()}] ${line}`);
const cpu = os.cpus()[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
const machine = `${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
console.log(`bench-compare: old ${oldSha}, new ${newSha} (${newRoot})\nmachine: ${machine}; load average at start ${loadavg()}`);

// The old commit: a detached worktree, installed and built (reused when --keep left one).
const oldRoot = path.join(os.tmpdir(), `seo-etl-bench-compare-${oldSha}`);
if (!existsSync(path.join(oldRoot, 'dist', 'bench', 'limiter.js'))) {
  rmSync(oldRoot, { recursive: true, force: true });
  spawnSync('git', ['-C', newRoot, 'worktree', 'prune']);
  log(`checking out ${oldSha} in ${oldRoot}, npm install, build`);
  git('worktree', 'add', '--detach', oldRoot, oldSha);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: oldRoot, stdio: 'inherit' });
  execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: oldRoot, stdio: 'inherit' });
}
if (!existsSync(path.join(newRoot, 'dist', 'bench', 'limiter.js'))) throw new Error('bench-compare: build this checkout first (make build)');
const has = (root, rel) => existsSync(path.join(root, 'dist', rel));

// Job sizes: the old commit's jobs section runs at this checkout's sizes (its build is patched), so that
// peak_rss_mb_small/large describe the same runs on both sides.
const sizesNote = (() => {
  const file = path.join(oldRoot, 'dist', 'bench', 'jobs.js');
  const src = readFileSync(file, 'utf8');
  const full = /(: )\{ small: [\d_]+, large: [\d_]+, postback: [\d_]+, keywordsPerTask: \d+ \}/;
  const newSizes = readFileSync(path.join(newRoot, 'dist', 'bench', 'jobs.js'), 'utf8').match(full);
  // Its own sizes from its source (a kept build may already be patched).
  const oldSizes = git('show', `${oldSha}:src/bench/jobs.ts`).match(full);
  if (!newSizes || !oldSizes) return `jobs at each commit's own sizes (not found to align: old ${oldSizes?.[0] ?? '?'})`;
  writeFileSync(file, src.replace(full, newSizes[0]));
  return `jobs at the same sizes on both sides (${newSizes[0].slice(2)}; ${oldSha} ran ${oldSizes[0].slice(2)} in its own bench)`;
})();

const scratch = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-bench-compare-run-'));
const results = { old: {}, new: {} };
const sectionLoad = [];
/** A figure whose goal is `>=` or that is a rate is better higher; any other, lower. */
const higherIsBetter = (f) => (f.goal ?? '').startsWith('>') || /\/s$/.test(f.unit);
const better = (name, o, n) => {
  if (o === n) return 'same';
  return (n > o) === higherIsBetter(results.new[name] ?? results.old[name]) ? 'better' : 'worse';
};
const keepBest = (side, figures) => {
  for (const [k, f] of Object.entries(figures)) {
    const prev = results[side][k];
    const higher = higherIsBetter(f);
    if (!prev || (higher ? f.value > prev.value : f.value < prev.value)) results[side][k] = { ...f, rounds: [...(prev?.rounds ?? []), f.value] };
    else prev.rounds.push(f.value);
  }
};

function runSection(side, root, section) {
  const dir = mkdtempSync(path.join(scratch, `${side}-${section}-`));
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [here, '--section', section, root, dir], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  rmSync(dir, { recursive: true, force: true });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{')) {
    log(`${side} ${section} FAILED: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
    return;
  }
  keepBest(side, JSON.parse(last));
  log(`${side} ${section} done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

// The nightly's load path on both sides, over one archive, through scripts/load-compare.mjs (one implementation).
function loadRounds(rounds) {
  const made = execFileSync(process.execPath, ['--input-type=module', '-e',
    `const { generateArchive } = await import(${JSON.stringify(pathToFileURL(path.join(newRoot, 'dist/bench/load.js')).href)}); console.log(JSON.stringify(await generateArchive(${JSON.stringify(path.join(scratch, 'load-archive'))}, 100000, 1000, 200)));`], { encoding: 'utf8' });
  const files = JSON.parse(made.trim().split('\n').pop());
  // load-compare.mjs loads every *.gz of one folder: the archive's files share theirs.
  const dir = path.dirname(files[0]);
  if (files.some((f) => path.dirname(f) !== dir)) throw new Error('bench-compare: the archive spans several folders');
  // A commit that still has the SQL route (loadArchiveFiles' sqlPath option) ran its nights on the JS path.
  const oldMode = readFileSync(path.join(oldRoot, 'dist', 'load', 'archive-load.js'), 'utf8').includes('sqlPath') ? 'js' : 'ours';
  const compare = path.join(newRoot, 'scripts', 'load-compare.mjs');
  const once = (root, mode) => {
    const out = execFileSync(process.execPath, [compare, root, dir, mode], { cwd: root, encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop());
  };
  const base = [], side = { old: [], new: [] };
  for (let i = 0; i < rounds; i++) {
    base.push(once(newRoot, 'base'));
    const [first, second] = i % 2 ? ['new', 'old'] : ['old', 'new'];
    for (const s of [first, second]) side[s].push(once(s === 'old' ? oldRoot : newRoot, s === 'old' ? oldMode : 'ours'));
    log(`load round ${i + 1}: DuckDB ${base[i].ms} ms, old (${oldMode}) ${side.old[i].ms} ms, new ${side.new[i].ms} ms`);
  }
  const bestBase = Math.min(...base.map((b) => b.ms));
  for (const s of ['old', 'new']) {
    const ms = side[s].map((r) => r.ms);
    keepBest(s, {
      load_ms: { value: Math.min(...ms), unit: 'ms', goal: 'informational' },
      load_vs_duckdb: { value: Number((Math.min(...ms) / bestBase).toFixed(2)), unit: 'ratio', goal: '<= 1.25' },
      load_cpu_s: { value: Math.min(...side[s].map((r) => r.cpuS)), unit: 's', goal: 'informational' },
      load_peak_rss_mb: { value: Math.max(...side[s].map((r) => r.maxRssMb)), unit: 'MB', goal: 'informational' },
      rows_per_s: { value: Math.round(side[s][0].rows / (Math.min(...ms) / 1000)), unit: 'rows/s', goal: 'informational' },
    });
    results[s].load_ms.rounds = ms;
  }
  return `load: ${side.new[0].rows} rows (new) / ${side.old[0].rows} (old, ${oldMode} path) from generateArchive(100000, 1000, 200), ${rounds} rounds alternating, DuckDB best ${bestBase} ms`;
}

const notes = sections.includes('jobs') ? [sizesNote] : [];
try {
  for (const section of sections) {
    sectionLoad.push(`${section} ${os.loadavg()[0].toFixed(1)}`);
    if (section === 'load') {
      try { notes.push(loadRounds(2)); } catch (err) { log(`load FAILED: ${String(err.message).split('\n')[0]}`); }
      continue;
    }
    const file = { limiter: 'bench/limiter.js', jobs: 'bench/jobs.js', families: 'bench/families.js', sandbox: 'bench/sandbox-rps.js' }[section];
    if (!has(oldRoot, file) || !has(newRoot, file)) { notes.push(`${section}: not in both commits`); continue; }
    // The limiter is the figure most sensitive to a busy machine: two rounds each, alternating, best kept.
    const order = section === 'limiter' ? ['old', 'new', 'new', 'old'] : ['old', 'new'];
    for (const side of order) runSection(side, side === 'old' ? oldRoot : newRoot, section);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
  if (!keep) { rmSync(oldRoot, { recursive: true, force: true }); spawnSync('git', ['-C', newRoot, 'worktree', 'prune']); }
}

const rows = [['figure', `old ${oldSha}`, `new ${newSha}`, 'new/old', 'verdict', 'rounds old | new']];
for (const name of Object.keys({ ...results.old, ...results.new })) {
  const o = results.old[name], n = results.new[name];
  if (!o || !n) continue;
  const ratio = o.value === 0 ? (n.value === 0 ? '1' : 'n/a') : (n.value / o.value).toFixed(3);
  rows.push([name, `${o.value} ${o.unit}`, `${n.value} ${n.unit}`, ratio, better(name, o.value, n.value), `${o.rounds.join(', ')} | ${n.rounds.join(', ')}`]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
console.log('');
for (const [i, r] of rows.entries()) {
  console.log(`| ${r.map((c, j) => String(c).padEnd(widths[j])).join(' | ')} |`);
  if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
}
console.log('');
console.log(`machine: ${machine}`);
console.log(`load average (1 min) as each section began: ${sectionLoad.join(', ')}; at the end ${loadavg()}`);
for (const n of notes) console.log(`note: ${n}`);
for (const name of Object.keys(results.new)) {
  const o = results.old[name], n = results.new[name];
  if (o && n && better(name, o.value, n.value) === 'worse' && (o.how || n.how)) console.log(`worse: ${name}\n  old: ${o.how}\n  new: ${n.how}`);
}
console.log(`verdict: better/worse by the figure's goal (>= or /s: higher is better; otherwise lower); took ${((Date.now() - started) / 60000).toFixed(1)} min`);
