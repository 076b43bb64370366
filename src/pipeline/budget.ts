/**
 * The run's budget: the one answer to "may I spend X?" for posting and live calls alike (the pipeline's budget_usd,
 * and a step's own when it has one), and the one record of the steps it stopped. What was spent is the ledger's
 * sum, read when a stage asks to `refresh` (each page of posting, each live step), plus what each call reported
 * since; what calls in flight may cost is held against it.
 */
import { batchCost, budgetAllows } from './plan.js';

/** Money taken for a call in flight: `settle` with what the service reported it cost (0 when it failed). */
export interface Spend {
  settle(costUsd: number): void;
}

/** The step a call belongs to: its own budget, when it has one, applies besides the pipeline's. */
export interface BudgetStep {
  name: string;
  budgetUsd?: number;
}

interface Account {
  spent: number | undefined;
  inFlight: number;
}

export class Budget {
  private readonly run: Account = { spent: undefined, inFlight: 0 };
  private readonly steps = new Map<string, Account>();
  /** Steps that left tasks planned because they did not fit. */
  readonly stoppedSteps = new Set<string>();

  /** `ledgerSpent(step?)`: what the ledger says the run (or one step of it) spent. */
  constructor(readonly limitUsd: number, private readonly ledgerSpent: (step?: string) => Promise<number>) {}

  /** What the run (or a step of it) has spent: the ledger's sum when last refreshed, and what calls reported since. */
  async spentUsd(step?: string): Promise<number> {
    const a = this.account(step);
    a.spent ??= await this.ledgerSpent(step);
    return a.spent;
  }

  /** Reads the ledger's sums again (they also hold costs recorded outside the calls made here: adopted tasks). */
  async refresh(step?: BudgetStep): Promise<number> {
    this.run.spent = await this.ledgerSpent();
    if (step?.budgetUsd !== undefined) this.account(step.name).spent = await this.ledgerSpent(step.name);
    return this.run.spent;
  }

  /** Takes `usd` for a call when what was spent, what calls in flight may cost and `usd` fit; null when they do not. */
  async take(usd: number, step?: BudgetStep): Promise<Spend | null> {
    const own = step?.budgetUsd !== undefined ? step : undefined;
    if (!budgetAllows((await this.spentUsd()) + this.run.inFlight, usd, this.limitUsd)) return null;
    if (own && !budgetAllows((await this.spentUsd(own.name)) + this.account(own.name).inFlight, usd, own.budgetUsd!)) return null;
    const held = own ? [this.run, this.account(own.name)] : [this.run];
    for (const a of held) a.inFlight += usd;
    let open = true;
    return {
      settle: (costUsd) => {
        if (!open) return;
        open = false;
        for (const a of held) {
          a.inFlight -= usd;
          a.spent = (a.spent ?? 0) + costUsd;
        }
      },
    };
  }

  /** Of a batch of tasks, those that fit the pipeline's budget and the step's own (see withinBudget). */
  async fitting<T extends { price: number }>(tasks: readonly T[], step?: BudgetStep): Promise<T[]> {
    const inRun = withinBudget(tasks, (await this.spentUsd()) + this.run.inFlight, this.limitUsd);
    if (step?.budgetUsd === undefined) return inRun;
    return withinBudget(inRun, (await this.spentUsd(step.name)) + this.account(step.name).inFlight, step.budgetUsd);
  }

  /** Whether the step's own budget, rather than the pipeline's, is the one with less left. */
  async stepsOwnIsTighter(step: BudgetStep): Promise<boolean> {
    if (step.budgetUsd === undefined) return false;
    return step.budgetUsd - (await this.spentUsd(step.name)) < this.limitUsd - (await this.spentUsd());
  }

  /** A step left tasks planned because they did not fit. */
  stop(step: string): void {
    this.stoppedSteps.add(step);
  }

  get stopped(): boolean {
    return this.stoppedSteps.size > 0;
  }

  private account(step?: string): Account {
    if (step === undefined) return this.run;
    let a = this.steps.get(step);
    if (!a) this.steps.set(step, (a = { spent: undefined, inFlight: 0 }));
    return a;
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
