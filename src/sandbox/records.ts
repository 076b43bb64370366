/**
 * What the sandbox saw and charged: every call, every accepted task, every charge, and the error log E13 lists.
 * Tests read these to prove, for example, that no task was posted twice or that spend matches the plan.
 */
import { roundUsd } from '../api/pricing.js';

export interface CallRecord {
  method: string;
  path: string;
  endpointId?: string;
  /** HTTP status answered (0 when the connection was dropped). */
  status: number;
  /** Envelope status_code, when an envelope was answered. */
  statusCode?: number;
  at: number;
}

export interface Posting {
  id: string;
  endpointId: string;
  tag: string | null;
  data: Record<string, unknown>;
  cost: number;
  postedAt: number;
}

export interface Charge {
  endpointId: string;
  taskId: string;
  cost: number;
  at: number;
}

/** An element of E13's result. */
export interface ErrorRecord {
  id: string;
  datetime: string;
  function: string;
  error_code: number;
  error_message: string;
  http_url: string;
  http_method: string;
  http_code: number;
  http_time: number;
  http_response: string;
  /** Milliseconds, for the 7-day window and datetime filters; not sent. */
  at: number;
}

export class Records {
  calls: CallRecord[] = [];
  postings: Posting[] = [];
  charges: Charge[] = [];
  errors: ErrorRecord[] = [];
  rateLimitAnswers = 0;
  private billedMicros = 0;

  charge(c: Charge): void {
    if (c.cost <= 0) return;
    this.charges.push(c);
    this.billedMicros += Math.round(c.cost * 1e6);
  }

  /** Gives back part of a charge (a SERP task billed less than posted); the balance and the day's spend go down. */
  refund(c: Charge): void {
    if (c.cost <= 0) return;
    this.charges.push({ ...c, cost: -c.cost });
    this.billedMicros -= Math.round(c.cost * 1e6);
  }

  billed(): number {
    return roundUsd(this.billedMicros / 1e6);
  }

  clear(): void {
    this.calls = [];
    this.postings = [];
    this.charges = [];
    this.errors = [];
    this.rateLimitAnswers = 0;
    this.billedMicros = 0;
  }
}
