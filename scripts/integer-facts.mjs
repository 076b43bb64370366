#!/usr/bin/env node
/**
 * The integer fields of the live service's published models. The official TypeScript client types every number
 * `number`; the official Python client, generated from the same OpenAPI specification, keeps the specification's
 * `integer` apart from `number` (`StrictInt` / `StrictFloat` in its model docs). This reads a checkout of that
 * client and writes scripts/facts/integer-fields.json: for each model, its fields the specification types integer.
 * Only those facts carry over; no code or prose. `make declarations` reads the file (scripts/generate-declarations.mjs).
 *   node scripts/integer-facts.mjs /path/to/PythonClient
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FACTS = path.join(ROOT, 'scripts', 'facts', 'integer-fields.json');

/** Model name -> its integer fields and its other numbers (sorted), from the client's docs/*.md tables. */
export function integerFields(docsDir) {
  const out = {};
  const doubles = {};
  for (const f of readdirSync(docsDir).filter((x) => x.endsWith('.md')).sort()) {
    const text = readFileSync(path.join(docsDir, f), 'utf8');
    const model = /^# (\w+)\s*$/m.exec(text)?.[1];
    if (!model) continue;
    const ints = [];
    const floats = [];
    // A row: **name** | **type** | ...; an integer scalar, a list of integers or a map to integers.
    for (const m of text.matchAll(/^\*\*(\w+)\*\* \| \*\*([^*]+)\*\*/gm)) {
      if (/^(StrictInt|int|List\[Optional\[StrictInt\]\]|Dict\[str, Optional\[StrictInt\]\])$/.test(m[2].trim())) ints.push(m[1]);
      if (/^(StrictFloat|float|Union\[StrictFloat, StrictInt\])$/.test(m[2].trim())) floats.push(m[1]);
    }
    if (ints.length) out[model] = ints.sort();
    if (floats.length) doubles[model] = floats.sort();
  }
  const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  return { models: sorted(out), doubles: sorted(doubles) };
}

function main() {
  const repo = process.argv[2];
  if (!repo) {
    console.error('usage: node scripts/integer-facts.mjs <checkout of the official Python client>');
    process.exit(2);
  }
  const pkg = readFileSync(path.join(repo, 'setup.py'), 'utf8');
  const version = /VERSION = "([^"]+)"/.exec(pkg)?.[1] ?? 'unknown';
  const { models, doubles } = integerFields(path.join(repo, 'docs'));
  // models: the integer fields; doubles: the numbers it types StrictFloat (a field in neither is not in its docs).
  const body = { source: `dataforseo-client (Python) ${version}: fields its models type StrictInt (models) and StrictFloat (doubles)`, models, doubles };
  writeFileSync(FACTS, `${JSON.stringify(body, null, 1)}\n`);
  console.log(`wrote ${path.relative(ROOT, FACTS)}: ${Object.values(models).flat().length} integer fields in ${Object.keys(models).length} models, ${Object.values(doubles).flat().length} other numbers`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
