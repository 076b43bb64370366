/**
 * What a run, `ingest` or `reprocess` kept outside the catalog's columns, for its summary: every unknown item type
 * (`table:type`) and every unknown field (`table.path`) by name with its count, most frequent first, so a user sees
 * what the service sends that the models do not declare without opening the `extra` columns.
 */
import type { LoadSummary } from '../load/index.js';

/** `name xN` for every entry, most frequent first, then by name. */
export function countedNames(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts).filter(([, n]) => n > 0).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).map(([k, n]) => `${k} x${n}`).join(', ');
}

export function keptLines(load: Pick<LoadSummary, 'unknownItemTypes' | 'unknownItemTypeNames' | 'unknownFields' | 'unknownFieldPaths' | 'badValues'>): string[] {
  const lines: string[] = [];
  if (load.unknownItemTypes) lines.push(`unknown item types kept: ${load.unknownItemTypes} (${countedNames(load.unknownItemTypeNames)})`);
  if (load.unknownFields) lines.push(`unknown fields kept in extra: ${load.unknownFields} (${countedNames(load.unknownFieldPaths)})`);
  if (load.badValues) lines.push(`values of an unexpected type kept in extra: ${load.badValues}`);
  return lines;
}
