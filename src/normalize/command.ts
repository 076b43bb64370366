import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { renderTablesDoc } from './docs.js';

/** `seo-etl docs`: rewrites docs/tables.md from the catalog. */
export async function docsCommand(opts: { root: string }): Promise<number> {
  const file = path.join(opts.root, 'docs', 'tables.md');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, renderTablesDoc());
  process.stdout.write(`wrote ${path.relative(process.cwd(), file) || file}\n`);
  return 0;
}
