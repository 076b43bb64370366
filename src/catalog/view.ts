/** What a view of the warehouse is, as a family or the core declares it: its question, grain, columns and SELECT. */
import type { TableDef } from './table.js';

export interface ViewColumn { name: string; description: string }

export interface ViewDef {
  name: string;
  /** The question the view answers, in the reader's words. */
  question: string;
  /** What one row is. */
  grain: string;
  /** Notes: where the rows come from, how duplicates are settled. */
  notes: string;
  columns: readonly ViewColumn[];
  /** The SELECT; its output columns are exactly `columns`, in order (a test checks it). */
  select: string;
  /** A SELECT over the catalog tables the warehouse holds (a view counting every table), used instead of `select` there. */
  selectOver?: (tables: readonly TableDef[]) => string;
  /** Tables of generated families the view reads: in use (created) wherever views are, so it always compiles. */
  needs?: readonly string[];
  /**
   * In PostgreSQL only: a materialized view of the same name and columns, refreshed by each publish that changes a
   * table it reads, unique on these columns (what a refresh that readers never wait for needs). For views too heavy
   * to compute per dashboard query; DuckDB keeps the plain view.
   */
  pgMaterializedKey?: readonly string[];
}

/** A view column: its name and what it holds. */
export const col = (name: string, description: string): ViewColumn => ({ name, description });
