export { ArchiveWriter, archiveLine, type ArchiveEntry, type ArchiveWriterOptions } from './writer.js';
export { readLines, listArchiveFiles, type ReadReport } from './reader.js';
export { resolveEndpoint, readArchiveLine, readDocument, isArchiveRecord, isEnvelope, type ArchiveRecord, type ArchiveProblem, type LineRead } from './records.js';
export { readResponseFile, entryOf } from './ingest.js';
