// One load of the bench's generated archive through loadArchiveFiles, into a fresh file: wall and CPU time,
// and peak RSS. Usage (after `npx tsc -p tsconfig.json`): node scripts/load-once.mjs [batchTasks] [keywordResults]
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const batch = Number(process.argv[2] ?? 2000);
const keywords = Number(process.argv[3] ?? 20000);
const { generateArchive, ENGINES } = await import(path.join(root, 'dist/bench/load.js'));
const { Warehouse } = await import(path.join(root, 'dist/load/warehouse.js'));
const { WAREHOUSE_STORAGE } = await import(path.join(root, 'dist/load/database.js'));
const { loadArchiveFiles } = await import(path.join(root, 'dist/load/archive-load.js'));
const dir = path.join(tmpdir(), `seo-etl-load-once-${process.pid}`);
mkdirSync(dir, { recursive: true });
try {
  const files = await generateArchive(path.join(dir, 'raw'), keywords, keywords / 200, keywords / 1000);
  const wh = await Warehouse.open(path.join(dir, 'w.duckdb'), { ...WAREHOUSE_STORAGE });
  await wh.ensureSchema();
  const t0 = performance.now();
  const r = await loadArchiveFiles(wh, files, { engines: ENGINES, batchTasks: batch });
  await wh.connection.run('CHECKPOINT');
  const ms = performance.now() - t0;
  wh.close();
  const cpu = process.cpuUsage();
  const rows = Object.values(r.rows).reduce((a, b) => a + b, 0);
  console.log(JSON.stringify({ batch, tasks: r.tasks, rows, wallMs: Math.round(ms), cpuS: +((cpu.user + cpu.system) / 1e6).toFixed(1), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
