/**
 * The lake records which data folder and service kind it holds (src/publish/holder.ts decides): a second folder, or
 * sandbox data over the live service's, is refused before anything is posted (verify) and at publish, naming the
 * lake and the way out; --take-over-destinations replaces the record on purpose.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { destinationsFor, exitWithDestinations, verifyDestinations } from '../../src/publish/destination.js';
import { publishToLake, readLakeHolder } from '../../src/publish/lake/index.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { holderOf } from '../../src/publish/holder.js';
import { noPause } from '../../src/pause.js';
import { EXIT, exitCodeOf } from '../../src/exit.js';
import { ROOT } from '../helpers/project.js';
import { startS3, type S3Server } from '../helpers/s3.js';

let s3: S3Server;
const dirs: string[] = [];
beforeAll(async () => { s3 = await startS3(); });
afterAll(async () => {
  await s3?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const folder = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'seo-etl-lake-holder-'));
  dirs.push(d);
  return d;
};

test('a second data folder is refused by the lake the first one publishes to, unless it takes it over', async () => {
  const url = 's3://seo-lake/held';
  const [a, b] = [folder(), folder()];
  const first = await publishToLake({ url, paths: warehousePaths(a), env: s3.env, holder: holderOf(a, 'live') });
  expect(first.status).toBe('published');
  expect(await readLakeHolder(url, s3.env)).toEqual(holderOf(a, 'live'));

  // Before anything is posted: the run's destinations verify.
  const env = { ...s3.env, SEO_ETL_LAKE_URL: url, SEO_ETL_WAREHOUSE_DIR: b, SEO_ETL_API_BASE_URL: 'https://api.example.com' };
  const config = loadConfig({ root: ROOT, env });
  const err = await verifyDestinations(destinationsFor(config, warehousePaths(b), noPause, undefined, { env })).then(() => undefined, (e: unknown) => e);
  expect(exitCodeOf(err)).toBe(EXIT.badInput);
  expect((err as Error).message).toContain(`the lake at ${url} holds the live service's data from ${holderOf(a, 'live').dataDir}`);
  expect((err as Error).message).toContain('--take-over-destinations');

  // At publish too (a refusal the verify could not see), as an outcome and exit 2.
  const refused = await publishToLake({ url, paths: warehousePaths(b), env: s3.env, holder: holderOf(b, 'sandbox') });
  expect(refused.status).toBe('refused');
  expect(exitWithDestinations(EXIT.ok, [{ name: 'lake', outcome: refused }])).toBe(EXIT.badInput);
  expect(await readLakeHolder(url, s3.env)).toEqual(holderOf(a, 'live'));

  const taken = await publishToLake({ url, paths: warehousePaths(b), env: s3.env, holder: holderOf(b, 'sandbox'), takeOver: true });
  expect(taken.status).toBe('published');
  expect(await readLakeHolder(url, s3.env)).toEqual(holderOf(b, 'sandbox'));
});
