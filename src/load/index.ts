export { Warehouse, stageTasks, emptySummary, addStats, mergeSummary, type LoadOptions, type LoadSummary, type StagedRows } from './warehouse.js';
export { ensureSchema, createTableSql, type SchemaChange } from './ddl.js';
export { appendRows } from './append.js';
export { loadArchiveFiles, type ArchiveLoadOptions, type ArchiveLoadResult } from './archive-load.js';
export { fastPathSql, fastResponseShape, SqlRoute } from './sql-path.js';
export { openDatabase, connectTo, storageOptions, WAREHOUSE_CATALOG, type OpenDatabaseOptions, type StorageOptions } from './database.js';
