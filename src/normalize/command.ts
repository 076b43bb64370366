import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { familyTableDocs, renderTablesDoc } from './docs.js';
import { writeAnalysisDoc } from '../publish/docs.js';
import { writeUnpricedDoc } from '../api/unpriced-doc.js';
import { loadConfig } from '../config/index.js';

/** `seo-etl docs`: rewrites docs/tables.md from the catalog. */
export async function docsCommand(opts: { root: string }): Promise<number> {
  const file = path.join(opts.root, 'docs', 'tables.md');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, renderTablesDoc());
  process.stdout.write(`wrote ${path.relative(process.cwd(), file) || file}\n`);
  const dir = path.join(opts.root, 'docs', 'tables');
  await mkdir(dir, { recursive: true });
  const pages = familyTableDocs();
  for (const [name, text] of Object.entries(pages)) await writeFile(path.join(dir, name), text);
  process.stdout.write(`wrote ${Object.keys(pages).length} family pages in docs/tables/\n`);
  // The curated views' section of docs/analysis.md is generated the same way (src/publish/docs.ts).
  const analysis = await writeAnalysisDoc(opts.root);
  process.stdout.write(`wrote ${path.relative(process.cwd(), analysis) || analysis} (views section)\n`);
  // The operations without a published price, in docs/api-live.md (src/api/unpriced-doc.ts).
  const live = await writeUnpricedDoc(opts.root, loadConfig({ root: opts.root, env: {} }).prices);
  process.stdout.write(`wrote ${path.relative(process.cwd(), live) || live} (unpriced section)\n`);
  return 0;
}
