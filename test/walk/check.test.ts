/**
 * Issue 32, point 2: `seo-etl check <pipeline>` (the README's check before going live) crashed with exit 70 unless
 * --root was given. Run as a user would: from the project, and from elsewhere with a relative path.
 */
import { expect, test } from 'vitest';
import path from 'node:path';
import { runCli } from '../reliability/helpers.js';
import { ROOT } from '../helpers/project.js';

const env = { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_LOGIN: '', SEO_ETL_PASSWORD: '' };

test('check with a pipeline compares the balance with its plan, from the project', async () => {
  const r = await runCli(['check', 'pipelines/nightly.yaml'], { env, timeoutMs: 30_000, cwd: ROOT });
  expect(r.stderr).not.toMatch(/ERR_INVALID_ARG_TYPE|\n\s+at /);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/credentials: accepted by the embedded sandbox/);
  expect(r.stdout).toMatch(/pipelines\/nightly\.yaml: the balance \$[\d.]+ covers the plan's \$[\d.]+/);
});

test('check with a pipeline given relative to another working directory', async () => {
  const r = await runCli(['check', path.join('..', 'pipelines', 'nightly.yaml')], { env, timeoutMs: 30_000, cwd: path.join(ROOT, 'docs') });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/covers the plan's/);
});
