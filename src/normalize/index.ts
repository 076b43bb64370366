export * from './catalog.js';
export { normalizeTask, NormalizeStats, coerce, tablesOfTask, resultKindOf, type CollectedTask, type NormalizeContext, type Row } from './extract.js';
export { neutralItemType } from './item-type.js';
export { renderTablesDoc } from './docs.js';
