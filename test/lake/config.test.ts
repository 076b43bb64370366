/**
 * The lake's configuration: `lake.url` / SEO_ETL_LAKE_URL as s3://bucket/prefix, and the AWS variables checked at
 * load time (before anything is posted), each problem naming its variable; the client is path-style at a custom
 * endpoint and reaches s3rver with the standard variables alone.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { loadConfig } from '../../src/config/index.js';
import { parseLakeUrl } from '../../src/config/lake.js';
import { lakeClient } from '../../src/publish/lake/s3.js';
import { objectName } from '../../src/publish/lake/sync.js';
import { ROOT } from '../helpers/project.js';
import { startS3, type S3Server } from '../helpers/s3.js';

const configError = (fn: () => unknown): string => {
  try { fn(); } catch (err) { return (err as Error).message; }
  throw new Error('no error');
};

describe('lake configuration', () => {
  test('off by default; SEO_ETL_LAKE_URL sets it', () => {
    expect(loadConfig({ root: ROOT, env: {} }).lake).toEqual({ url: '' });
    expect(loadConfig({ root: ROOT, env: { SEO_ETL_LAKE_URL: 's3://seo-lake/nightly' } }).lake.url).toBe('s3://seo-lake/nightly');
  });

  test('the URL names a bucket and a prefix; the prefix ends in one slash', () => {
    expect(parseLakeUrl('s3://seo-lake/nightly')).toEqual({ url: 's3://seo-lake/nightly', bucket: 'seo-lake', prefix: 'nightly/' });
    expect(parseLakeUrl('s3://seo-lake//a/b/')).toEqual({ url: 's3://seo-lake/a/b', bucket: 'seo-lake', prefix: 'a/b/' });
    expect(parseLakeUrl('s3://seo-lake')).toEqual({ url: 's3://seo-lake', bucket: 'seo-lake', prefix: '' });
    expect(parseLakeUrl('gs://seo-lake/x')).toHaveProperty('problem');
    expect(parseLakeUrl('s3://Seo_Lake/x')).toHaveProperty('problem');
    expect(parseLakeUrl('s3://seo-lake/a/../b')).toHaveProperty('problem');
  });

  test('a bad URL is refused naming the variable, the key and the rule', () => {
    const msg = configError(() => loadConfig({ root: ROOT, env: { SEO_ETL_LAKE_URL: 'https://seo-lake.s3.amazonaws.com/x' } }));
    expect(msg).toContain('SEO_ETL_LAKE_URL');
    expect(msg).toContain('lake.url');
    expect(msg).toContain('must be s3://<bucket>/<prefix>');
  });

  test('with a lake, a bad endpoint or half a key pair is refused naming the variable; without one they are not read', () => {
    const lake = { SEO_ETL_LAKE_URL: 's3://seo-lake/x' };
    const endpoint = configError(() => loadConfig({ root: ROOT, env: { ...lake, AWS_ENDPOINT_URL_S3: 'localhost:9000' } }));
    expect(endpoint).toContain('environment variable AWS_ENDPOINT_URL_S3');
    expect(endpoint).toContain("http:// or https:// address, got 'localhost:9000'");
    expect(configError(() => loadConfig({ root: ROOT, env: { ...lake, AWS_ENDPOINT_URL: 'ftp://x' } }))).toContain('AWS_ENDPOINT_URL:');
    expect(configError(() => loadConfig({ root: ROOT, env: { ...lake, AWS_ACCESS_KEY_ID: 'AKIA' } }))).toContain('environment variable AWS_SECRET_ACCESS_KEY');
    expect(() => loadConfig({ root: ROOT, env: { AWS_ENDPOINT_URL_S3: 'localhost:9000' } })).not.toThrow();
  });

  test('object names carry the run and the content', () => {
    expect(objectName('part-nightly-2025-03-04.parquet', 'ab'.repeat(32))).toBe(`part-nightly-2025-03-04-${'ab'.repeat(8)}.parquet`);
  });
});

describe('the lake client', () => {
  let s3: S3Server;
  beforeAll(async () => { s3 = await startS3(['seo-lake']); });
  afterAll(async () => { await s3?.close(); });

  test('reaches a custom endpoint path-style from the standard variables (AWS_ENDPOINT_URL as well as the S3 one)', async () => {
    for (const env of [s3.env, { ...s3.env, AWS_ENDPOINT_URL_S3: '', AWS_ENDPOINT_URL: s3.endpoint }]) {
      const client = lakeClient(env);
      try {
        await client.send(new PutObjectCommand({ Bucket: 'seo-lake', Key: 'probe/one', Body: Buffer.from('x'), ContentLength: 1 }));
        const r = await client.send(new ListObjectsV2Command({ Bucket: 'seo-lake', Prefix: 'probe/' }));
        expect(r.Contents?.map((o) => o.Key)).toEqual(['probe/one']);
        expect(await client.config.forcePathStyle).toBe(true);
      } finally {
        client.destroy();
      }
    }
  });
});
