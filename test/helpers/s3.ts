/** The tests' S3-protocol server: the bench's (src/bench/s3-server.ts), one implementation. */
export { startS3, type S3Server } from '../../src/bench/s3-server.js';
