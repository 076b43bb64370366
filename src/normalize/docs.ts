/**
 * The data dictionary (docs/tables.md), rendered from the catalog. A test compares the file with this output, so
 * the dictionary cannot drift from the tables; `seo-etl docs` rewrites it.
 */
import { AVAILABLE_TABLES, TABLE_BY_NAME, childrenOf } from './catalog.js';
import { allColumns, type TableDef } from '../catalog/table.js';
import { ENDPOINTS } from '../api/catalog.js';
import { FAMILIES } from '../families/index.js';
import { pgName } from './pg-name.js';

/** Tables of generated result kinds: documented per family in docs/tables/<family>.md, compactly. */
const ON_DEMAND_ANY = new Set(FAMILIES.flatMap((f) => (f.onDemandTables ?? []).map((t) => t.name)));
/** The root of a table's family: tables below a hand-declared root (its item types' own tables) are documented with it. */
const rootOf = (t: TableDef): TableDef => (t.parent ? rootOf(TABLE_BY_NAME.get(t.parent)!) : t);
const ON_DEMAND = new Set([...ON_DEMAND_ANY].filter((n) => ON_DEMAND_ANY.has(rootOf(TABLE_BY_NAME.get(n)!).name)));
const TABLES = AVAILABLE_TABLES.filter((t) => !ON_DEMAND.has(t.name));

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** A name and, where PostgreSQL keeps it shorter (63 bytes at most), the name it has there. */
const withPg = (name: string) => (pgName(name) === name ? `\`${name}\`` : `\`${name}\` (PostgreSQL: \`${pgName(name)}\`)`);

function sourceOf(t: TableDef): string {
  if (t.name === 'tasks') return 'every collected task (task object, envelope `version`)';
  // The core lists every task family shares: named by kind, so a new family does not change this page.
  if (t.resultKind === 'ready_list') return '`result[]` of every `tasks_ready` endpoint';
  if (t.resultKind === 'fixed_tasks') return '`result[]` of every `tasks_fixed` endpoint';
  if (t.resultKind) {
    const eps = ENDPOINTS.filter((e) => e.result === t.resultKind || t.alsoResultKinds?.includes(e.result)).map((e) => `\`${e.id}\``);
    return `\`result[]\`${t.resultShape === 'scalar_lists' ? '[]' : ''} of ${eps.join(', ')}`;
  }
  if (t.source?.kind === 'item') {
    const of = t.source.path === '$' ? `each row of \`${t.parent}\`` : `\`${t.source.path}\` of each row of \`${t.parent}\``;
    return `the item type's own fields of ${of} (item type ${(t.onlyForItemTypes ?? []).map((x) => `\`${x}\``).join(', ')}), same \`_id\``;
  }
  if (t.source) {
    const where = `\`${t.source.path}\` of \`${t.parent}\``;
    const shape = { objects: 'each object of', scalars: 'each element of', entries: 'each key/value of', technologies: 'each (group, category, name) of'}[t.source.kind];
    return `${shape} ${where}${t.onlyForItemTypes ? ` (item types ${t.onlyForItemTypes.map((x) => `\`${x}\``).join(', ')})` : ''}`;
  }
  return 'results of endpoints outside the catalog';
}

function pathOf(t: TableDef, name: string): string {
  const col = t.columns.find((c) => c.name === name);
  if (!col) return '';
  const p = col.path === '$' ? '(the element)' : col.path.startsWith('$') ? `(${col.path.slice(1)})` : `\`${col.path}\``;
  return col.convert ? `${p} ${col.convert}` : p;
}

export function renderTablesDoc(): string {
  const lines: string[] = [
    '# Tables',
    '',
    '<!-- Generated from the catalog (src/catalog/catalog.ts) by `seo-etl docs`; do not edit by hand (a test fails when they disagree). -->',
    '',
    'Every table carries lineage columns: `_id` (deterministic row id, the primary key), `_task_id`, `_run_id`, `_loaded_at`;',
    'result and child tables also `_list_idx` (position in the source list), child tables `_parent_id` (the parent row\'s `_id`),',
    'and those below a result root `_parent_key` (the same without its leading `<task_id>:`, which is what DuckDB stores).',
    'A child table is named `<parent>__<child>`. Fields the catalog does not know are kept in the `extra` JSON column',
    '(and named with its count in the run summary). Item types are stored engine-neutral in `item_type` beside the raw `type`.',
    'Loads replace a task\'s rows as a unit, so loading the same response twice changes nothing.',
    '',
    'The families declared from the official client\'s models have their tables (created only once a pipeline fetches',
    'them) in one page per family, `docs/tables/<family>.md`; `seo-etl tables --available` lists them too. A list of',
    'items of several types lands there as one table of the common fields and `item_type`, and one table per item type',
    '(`<table>__<item type>`) of that type\'s own fields, one row per row of that type with the same `_id`:',
    '`JOIN labs_ranked_keywords__items__organic o USING (_id)`. An item type\'s table (and those below it) is created',
    'with the first row of that type a load meets, so a warehouse holds the types its answers had.',
    '',
    '| table | parent | rows from |',
    '|---|---|---|',
    ...TABLES.map((t) => `| [\`${t.name}\`](#${t.name}) | ${t.parent ? `\`${t.parent}\`` : ''} | ${esc(sourceOf(t))} |`),
    '',
  ];
  for (const t of TABLES) {
    lines.push(`## ${t.name}`, '', esc(t.description), '');
    if (pgName(t.name) !== t.name) lines.push(`- In PostgreSQL: \`${pgName(t.name)}\` (names longer than 63 bytes are shortened)`);
    lines.push(`- Primary key: \`_id\`${t.parent ? `; parent: \`${t.parent}\` (\`_parent_id\` -> \`${t.parent}._id\`)` : ''}`);
    lines.push(`- Rows from: ${sourceOf(t)}`);
    const kids = childrenOf(t.name);
    if (kids.length) lines.push(`- Child tables: ${kids.map((k) => `\`${k.name}\``).join(', ')}`);
    if (t.knownItemTypes) lines.push(`- Known item types: ${t.knownItemTypes.map((k) => `\`${k}\``).join(', ')}`);
    if (t.ignored?.length) lines.push(`- Not stored: ${t.ignored.map((i) => `\`${i.path}\` (${i.why})`).join('; ')}`);
    lines.push('', '| column | type | from | description |', '|---|---|---|---|');
    for (const col of allColumns(t)) lines.push(`| ${withPg(col.name)} | ${col.type} | ${esc(pathOf(t, col.name))} | ${esc(col.description)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

/**
 * The tables of one family's generated result kinds (docs/tables/<family>.md): per result kind its endpoints and
 * each of its tables with its columns (name and type; each column's source is the model path its name spells).
 */
export function renderFamilyTablesDoc(family: string): string {
  const f = FAMILIES.find((x) => x.name === family)!;
  const tables = f.onDemandTables ?? [];
  const lines = [
    `# Tables of \`${family}\``,
    '',
    '<!-- Generated from the generated declarations (src/families/generated/) by `seo-etl docs`; do not edit by hand. -->',
    '',
    `${esc(f.description)} Tables are created once a pipeline fetches their endpoints (an item type's with its first row). Columns are named after their path`,
    'in the result (`parent__child` for nested fields); every table also has the lineage columns and `extra` (docs/tables.md).',
    'A name longer than PostgreSQL\'s 63 bytes is shown with the shorter name it has there (docs/postgres.md).',
    '',
  ];
  for (const root of tables.filter((t) => t.parent === null)) {
    const eps = ENDPOINTS.filter((e) => e.result === root.resultKind).map((e) => `\`${e.id}\``);
    lines.push(`## ${root.name}`, '', `${esc(root.description)} Endpoints: ${eps.join(', ')}.`, '');
    const walk = (t: TableDef, depth: number) => {
      const cols = t.columns.map((c) => `${withPg(c.name)} ${c.type}`).join(', ');
      const from = t.source ? ` (${t.source.kind} of \`${t.source.path}\`${t.onlyForItemTypes ? `; item types ${t.onlyForItemTypes.join(', ')}` : ''})` : '';
      lines.push(`${'  '.repeat(depth)}- ${withPg(t.name)}${from}: ${cols}`);
      for (const ch of childrenOf(t.name)) walk(ch, depth + 1);
    };
    walk(root, 0);
    lines.push('');
  }
  return lines.join('\n');
}

/** Every family page of docs/tables/, by file name. */
export function familyTableDocs(): Record<string, string> {
  return Object.fromEntries(FAMILIES.filter((f) => f.onDemandTables?.length).map((f) => [`${f.name}.md`, renderFamilyTablesDoc(f.name)]));
}
