export { Warehouse, emptySummary, addStats, mergeSummary, type LoadOptions, type LoadSummary } from './warehouse.js';
export { planLoad, type LoadPlan } from './plan.js';
export { ensureSchema, createTableSql, type SchemaChange } from './ddl.js';
export { appendRows } from './append.js';
export { loadArchiveFiles, type ArchiveLoadOptions, type ArchiveLoadResult } from './archive-load.js';
export { openDatabase, connectTo, WAREHOUSE_STORAGE, WAREHOUSE_CATALOG, type OpenDatabaseOptions, type StorageOptions } from './database.js';
export { LoadChannel, type ChannelOptions, type Committed, type Hold, type LoadPort } from './channel.js';
export { commitThrough, isLoadable, mergeMoves, movesOf, type CommitOptions, type LedgerMove } from './commit.js';
export { resultsOf, bytesOfOutcome, type Outcome, type Sink } from './outcome.js';
