/**
 * What a load replaces, decided from the tasks alone before any is normalized. planLoad is pure (it runs ahead of
 * the writer's turn, and on a worker thread, prepare.ts); tablesOfTasks names the tables the tasks write (the warehouse puts them in use).
 */
import type { Catalog } from '../catalog/catalog.js';
import { CATALOG } from '../families/index.js';
import type { CollectedTask } from '../normalize/extract.js';

/** What one load replaces: the tasks it normalizes and the keys of the rows they replace. */
export interface LoadPlan {
  /** The tasks to normalize, in order; a task that comes twice for the same tables keeps its later copy. */
  tasks: CollectedTask[];
  /** Tables whose rows of these task ids are replaced, with the task ids (deduplicated). */
  replace: Map<string, Set<string>>;
  /** `tasks` row ids (`<task_id>@<endpoint_id>`) replaced. */
  taskRowIds: Set<string>;
}

/**
 * What a load of `tasks` replaces, found without normalizing them. When the same task comes twice for the same
 * tables (a re-collection in one batch), the later one wins, as it would across batches.
 */
export function planLoad(tasks: readonly CollectedTask[], catalog: Catalog = CATALOG): LoadPlan {
  const last = new Map<string, number>();
  tasks.forEach((t, i) => {
    const tables = catalog.tablesOf(t.endpointId);
    if (tables.length) last.set(`${t.task?.id}\u0000${tables[tables.length - 1]}\u0000${t.endpointId}`, i);
  });
  const plan: LoadPlan = { tasks: [], replace: new Map(), taskRowIds: new Set() };
  tasks.forEach((t, i) => {
    const tables = catalog.tablesOf(t.endpointId);
    if (tables.length && last.get(`${t.task?.id}\u0000${tables[tables.length - 1]}\u0000${t.endpointId}`) !== i) return;
    plan.tasks.push(t);
    if (!tables.length) return;
    // A `tasks` row an older version stored under the endpoint's old id is replaced too.
    for (const id of catalog.storedEndpointIds(t.endpointId)) plan.taskRowIds.add(`${t.task.id}@${id}`);
    for (const name of tables) if (name !== 'tasks' && !name.startsWith('tasks__')) addReplaced(plan, name, [t.task.id]);
  });
  return plan;
}

/** Adds task ids whose rows of `table` a load replaces. */
export function addReplaced(plan: LoadPlan, table: string, taskIds: Iterable<string>): void {
  let set = plan.replace.get(table);
  if (!set) plan.replace.set(table, (set = new Set()));
  for (const id of taskIds) set.add(id);
}

/** Every table the tasks may write, in catalog order (those of item types not met yet included). */
export function tablesOfTasks(tasks: readonly { endpointId: string }[], catalog: Catalog = CATALOG): string[] {
  const names = new Set<string>();
  for (const t of tasks) for (const n of catalog.tablesOf(t.endpointId)) names.add(n);
  return catalog.inOrder(names).map((t) => t.name);
}
