export { ArchiveWriter, archiveLine, type ArchiveEntry, type ArchiveWriterOptions } from './writer.js';
export { readLines, listArchiveFiles, type ReadReport } from './reader.js';
export { resolveEndpoint, tasksOfEnvelope, tasksOfRecord, isArchiveRecord, isEnvelope, type ArchiveRecord } from './records.js';
export { readResponseFile, entryOf } from './ingest.js';
