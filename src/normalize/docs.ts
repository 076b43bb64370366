/**
 * The data dictionary (docs/tables.md), rendered from the catalog. A test compares the file with this output, so
 * the dictionary cannot drift from the tables; `seo-etl docs` rewrites it.
 */
import { TABLES, allColumns, childrenOf, type TableDef } from './catalog.js';
import { ENDPOINTS } from '../api/catalog.js';

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function sourceOf(t: TableDef): string {
  if (t.name === 'tasks') return 'every collected task (task object, envelope `version`)';
  if (t.resultKind) {
    const eps = ENDPOINTS.filter((e) => e.result === t.resultKind || t.alsoResultKinds?.includes(e.result)).map((e) => `\`${e.id}\``);
    return `\`result[]\`${t.resultShape === 'scalar_lists' ? '[]' : ''} of ${eps.join(', ')}`;
  }
  if (t.source) {
    const where = `\`${t.source.path}\` of \`${t.parent}\``;
    const shape = { objects: 'each object of', scalars: 'each element of', entries: 'each key/value of', technologies: 'each (group, category, name) of' }[t.source.kind];
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
    '<!-- Generated from src/normalize/catalog.ts by `seo-etl docs`; do not edit by hand (a test fails when they disagree). -->',
    '',
    'Every table carries lineage columns: `_id` (deterministic row id, the primary key), `_task_id`, `_run_id`, `_loaded_at`;',
    'result and child tables also `_list_idx` (position in the source list), child tables `_parent_id` (the parent row\'s `_id`).',
    'A child table is named `<parent>__<child>`. Fields the catalog does not know are kept in the `extra` JSON column',
    '(and counted in the run summary). Item types are stored engine-neutral in `item_type` beside the raw `type`.',
    'Loads replace a task\'s rows as a unit, so loading the same response twice changes nothing.',
    '',
    '| table | parent | rows from |',
    '|---|---|---|',
    ...TABLES.map((t) => `| [\`${t.name}\`](#${t.name}) | ${t.parent ? `\`${t.parent}\`` : ''} | ${esc(sourceOf(t))} |`),
    '',
  ];
  for (const t of TABLES) {
    lines.push(`## ${t.name}`, '', esc(t.description), '');
    lines.push(`- Primary key: \`_id\`${t.parent ? `; parent: \`${t.parent}\` (\`_parent_id\` -> \`${t.parent}._id\`)` : ''}`);
    lines.push(`- Rows from: ${sourceOf(t)}`);
    const kids = childrenOf(t.name);
    if (kids.length) lines.push(`- Child tables: ${kids.map((k) => `\`${k.name}\``).join(', ')}`);
    if (t.knownItemTypes) lines.push(`- Known item types: ${t.knownItemTypes.map((k) => `\`${k}\``).join(', ')}`);
    if (t.ignored?.length) lines.push(`- Not stored: ${t.ignored.map((i) => `\`${i.path}\` (${i.why})`).join('; ')}`);
    lines.push('', '| column | type | from | description |', '|---|---|---|---|');
    for (const col of allColumns(t)) lines.push(`| \`${col.name}\` | ${col.type} | ${esc(pathOf(t, col.name))} | ${esc(col.description)} |`);
    lines.push('');
  }
  return lines.join('\n');
}
