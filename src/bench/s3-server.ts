/**
 * An S3-protocol server on 127.0.0.1 for the lake's tests and bench: s3rver (an npm devDependency, imported only
 * when started), on a free port, its objects in a temp folder, stopped by `close`. The official AWS client talks to
 * it as to any endpoint (path-style).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface S3Server {
  endpoint: string;
  /** Where the server keeps its buckets (and the parts of multipart uploads under way). */
  directory: string;
  /** The standard AWS variables that point the lake (and any AWS tool) at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3(buckets: readonly string[] = ['seo-lake']): Promise<S3Server> {
  const { default: S3rver } = await import('s3rver');
  const directory = mkdtempSync(path.join(tmpdir(), 'seo-etl-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    directory,
    // s3rver's own fixed key pair (it checks signatures against it).
    env: { AWS_ENDPOINT_URL_S3: endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
