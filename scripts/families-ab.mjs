// Before/after in one run, the families section alone (full sizes): the same families measured by two builds,
// alternating, so that the machine's load falls on both alike.
//   node scripts/families-ab.mjs <before-dist> <after-dist> base:keywords_legacy,new:keywords_legacy,new:serp_organic,base:serp_organic
// Each build is a `dist` folder (a checkout's `npx tsc -p tsconfig.json`; keep the folder named `dist`, the profile's
// categories match on it). Prints each step's headroom, job CPU per task and the profile's `limit:` text.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [before, after, planText] = process.argv.slice(2);
if (!before || !after || !planText) {
  process.stderr.write('usage: node scripts/families-ab.mjs <before-dist> <after-dist> base:<family>,new:<family>,...\n');
  process.exit(2);
}
const load = (dist) => import(pathToFileURL(path.resolve(dist, 'bench', 'families.js')).href);
const builds = { base: await load(before), new: await load(after) };
for (const step of planText.split(',')) {
  const [v, family] = step.split(':');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'families-ab-'));
  const load0 = os.loadavg()[0].toFixed(1);
  try {
    const f = await builds[v].benchFamilies({ root: process.cwd(), quick: false, dir }, [family]);
    const h = f[`headroom_${family}`];
    const cpu = /\(([\d,]+) ms per task, ([\d,]+) rows per CPU second\)/.exec(h.how);
    const limit = /^limit: (.*?); over the whole run/.exec(h.how)?.[1];
    console.log(`${v} ${family}: headroom ${h.value}, ${cpu?.[1]} ms of job CPU per task, ${cpu?.[2]} rows per CPU second, load average ${load0}-${os.loadavg()[0].toFixed(1)}\n   ${limit}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
