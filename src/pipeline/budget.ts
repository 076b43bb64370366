/**
 * The run's budget: the one answer to "may I spend X?" for posting and live calls alike, and the one record of the
 * steps it stopped. What was spent is the ledger's sum, read when a stage asks to `refresh` (each page of posting,
 * each live step), plus what each call reported since; what calls in flight may cost is held against it.
 */
import { batchCost, budgetAllows } from './plan.js';

/** Money taken for a call in flight: `settle` with what the service reported it cost (0 when it failed). */
export interface Spend {
  settle(costUsd: number): void;
}

export class Budget {
  private spent: number | undefined;
  private inFlight = 0;
  /** Steps that left tasks planned because they did not fit. */
  readonly stoppedSteps = new Set<string>();

  constructor(readonly limitUsd: number, private readonly ledgerSpent: () => Promise<number>) {}

  /** What the run has spent: the ledger's sum when last refreshed, and what calls reported since. */
  async spentUsd(): Promise<number> {
    this.spent ??= await this.ledgerSpent();
    return this.spent;
  }

  /** Reads the ledger's sum again (it also holds costs recorded outside the calls made here: adopted tasks). */
  async refresh(): Promise<number> {
    this.spent = await this.ledgerSpent();
    return this.spent;
  }

  /** Takes `usd` for a call when what was spent, what calls in flight may cost and `usd` fit; null when they do not. */
  async take(usd: number): Promise<Spend | null> {
    const spent = await this.spentUsd();
    if (!budgetAllows(spent + this.inFlight, usd, this.limitUsd)) return null;
    this.inFlight += usd;
    let open = true;
    return {
      settle: (costUsd) => {
        if (!open) return;
        open = false;
        this.inFlight -= usd;
        this.spent = (this.spent ?? 0) + costUsd;
      },
    };
  }

  /** Of a batch of tasks, those that fit (see withinBudget). */
  async fitting<T extends { price: number }>(tasks: readonly T[]): Promise<T[]> {
    return withinBudget(tasks, (await this.spentUsd()) + this.inFlight, this.limitUsd);
  }

  /** A step left tasks planned because they did not fit. */
  stop(step: string): void {
    this.stoppedSteps.add(step);
  }

  get stopped(): boolean {
    return this.stoppedSteps.size > 0;
  }
}

/** The tasks of a batch that fit the budget after `spent`, in order, each cheaper one after one that did not. Pure. */
export function withinBudget<T extends { price: number }>(chunk: readonly T[], spent: number, budgetUsd: number): T[] {
  const out: T[] = [];
  let cost = 0;
  for (const t of chunk) {
    const next = batchCost([{ price: cost }, t]);
    if (!budgetAllows(spent, next, budgetUsd)) continue;
    out.push(t);
    cost = next;
  }
  return out;
}
