// One load of an archive folder's *.ndjson.gz through a checkout's loadArchiveFiles (or DuckDB's own read_json +
// unnest baseline), into a fresh file: wall, CPU, maxRSS. Compares checkouts on the same archive (docs/performance.md).
// Usage, after building each checkout: node scripts/load-compare.mjs <checkout> <archive-dir> <ours|js|sql|base>
// (js and sql: 528cc50's two routes; ours: the one normalizer).
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
const [root, dir, mode] = process.argv.slice(2);
const { ENGINES, baseline } = await import(path.join(root, 'dist/bench/load.js'));
const { Warehouse } = await import(path.join(root, 'dist/load/warehouse.js'));
const { WAREHOUSE_STORAGE } = await import(path.join(root, 'dist/load/database.js'));
const { loadArchiveFiles } = await import(path.join(root, 'dist/load/archive-load.js'));
const files = readdirSync(dir).filter(f => f.endsWith('.gz')).sort().map(f => path.join(dir, f));
const la = os.loadavg()[0].toFixed(1);
const c0 = process.cpuUsage();
if (mode === 'base') {
  const r = await baseline(os.tmpdir(), files);
  const cpu = process.cpuUsage(c0);
  console.log(JSON.stringify({ code: 'duckdb read_json+unnest', ms: Math.round(r.ms), rows: r.value, cpuS: +((cpu.user + cpu.system) / 1e6).toFixed(1), load: la }));
} else {
  const db = path.join(os.tmpdir(), `load-compare-${process.pid}.duckdb`);
  const wh = await Warehouse.open(db, { ...WAREHOUSE_STORAGE });
  await wh.ensureSchema();
  const t0 = performance.now();
  const r = await loadArchiveFiles(wh, files, { engines: ENGINES, ...(mode === 'js' ? { sqlPath: false } : {}) });
  await wh.connection.run('CHECKPOINT');
  const ms = performance.now() - t0;
  wh.close();
  const cpu = process.cpuUsage(c0);
  console.log(JSON.stringify({ code: `${path.basename(root)} ${mode}`, ms: Math.round(ms), rows: Object.values(r.rows).reduce((a, b) => a + b, 0), cpuS: +((cpu.user + cpu.system) / 1e6).toFixed(1), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), load: la }));
  rmSync(db, { force: true }); rmSync(db + '.wal', { force: true });
}
