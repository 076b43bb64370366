/**
 * The lake's S3 client, from the standard AWS variables: the official client reads the same names the AWS CLI
 * does, so one configuration reaches AWS, GCS's interoperability endpoint, R2 and MinIO. A custom endpoint gets
 * path-style addressing (bucket in the path: MinIO, Ceph and local servers have no per-bucket host names) and
 * checksums only where the protocol requires them (servers other than AWS refuse or mis-store the newer ones).
 */
import { S3Client } from '@aws-sdk/client-s3';
import { lakeEndpoint } from '../../config/lake.js';

export function lakeClient(env: NodeJS.ProcessEnv): S3Client {
  // The client warns on Node 20 at every start that its 2027 releases need Node 22: a cron mail a night. The
  // version in package-lock.json runs on Node 20; docs/parquet.md says it once.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const endpoint = lakeEndpoint(env)?.value;
  const credentials = env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
    ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) }
    : undefined; // a named profile (AWS_PROFILE), SSO or the instance's role: the client's own chain
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || (endpoint ? 'us-east-1' : undefined);
  return new S3Client({
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' as const, responseChecksumValidation: 'WHEN_REQUIRED' as const } : {}),
    ...(credentials ? { credentials } : {}),
    maxAttempts: 5,
  });
}
