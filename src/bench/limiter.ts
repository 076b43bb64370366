/**
 * Benchmark of the account-wide limiter against the embedded sandbox (not a test: it measures).
 *
 *   benchLimiter({ quick }) -> { limiter_utilization, rate_limit_answers, windows, calls, details }
 *
 * The sandbox enforces a scaled minute (200 calls per 2000 ms sliding window). The client is configured with the
 * same numbers: it does not shave a guessed percentage off. Its margin is derived in the pacer (src/queue/pacer.ts):
 * call k+200 may start only once call k has come back and 2000 ms + 1 ms have passed, because the sandbox stamps
 * call k somewhere between our start and our end of it (rule 2, the guarantee: no amount of network or event-loop
 * jitter can make the sandbox count 201 calls in a window), and the even schedule leaves room for that per window
 * from the start: spacing (W + margin) / 200 with margin = p90 of measured round trips + 1 ms tick (rule 1). The
 * expected utilisation is W / (W + margin), about 0.997 here. Sixteen workers keep the queue saturated for `windows`
 * windows (5 quick, 10 full); utilisation is the calls the sandbox received in the `windows` windows from the
 * first arrival, divided by windows x 200. Nothing is excluded: the first window includes connection set-up.
 * What costs utilisation on a busy machine is event-loop stalls (the client and the sandbox share one process):
 * a stall is caught up afterwards (pacer.ts), but a stall near the end of the measured span is not repaid inside
 * it, so the details report the event-loop delay next to the figure.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../config/index.js';
import { startSandbox } from '../sandbox/index.js';
import { ApiClient } from '../api/client.js';
import { createLogger } from '../log/logger.js';
import { RateLimiter } from '../queue/index.js';

export interface LimiterBenchResult {
  limiter_utilization: number;
  rate_limit_answers: number;
  windows: number;
  calls: number;
  details: string;
}

const CALLS = 200;
const WINDOW_MS = 2000;

/** Most arrivals in any window [t, t + windowMs), from sorted arrival times. */
function maxInWindow(sorted: number[], windowMs: number): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi] - sorted[lo] >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

export async function benchLimiter(opts: { quick: boolean }): Promise<LimiterBenchResult> {
  const windows = opts.quick ? 5 : 10;
  const config = loadConfig({
    overrides: {
      sandbox: { rate_limit_calls: CALLS, rate_limit_window_ms: WINDOW_MS, completion_delay_ms: 0 },
      rate_limit: { calls: CALLS, window_ms: WINDOW_MS },
    },
  });
  const sandbox = await startSandbox({ config, port: 0 });
  try {
    const limiter = RateLimiter.fromConfig(config);
    const client = ApiClient.fromConfig(config, { baseUrl: sandbox.url, limiter, logger: createLogger({ level: 'warn' }) });
    // A free list with no limit of its own (tasks_ready has 20 a minute per endpoint): only the account's limit applies.
    const endpointId = 'serp.endpoints';
    // Saturate: more workers than the limiter lets through, each asking again as soon as its call returns.
    // The machine's own stalls show up as lost calls; measure them so the figure can be read.
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const startedAt = Date.now();
    const deadline = startedAt + windows * WINDOW_MS + WINDOW_MS / 2;
    const workers = Array.from({ length: config.rate_limit.concurrency }, async () => {
      while (Date.now() < deadline) await client.get(endpointId);
    });
    await Promise.all(workers);
    await limiter.onIdle();
    loopDelay.disable();

    const arrivals = sandbox.controls.calls().filter((c) => c.status === 200 && c.statusCode === 20000).map((c) => c.at).sort((a, b) => a - b);
    const first = arrivals[0];
    const measuredMs = windows * WINDOW_MS;
    const inSpan = arrivals.filter((t) => t < first + measuredMs).length;
    const allowed = windows * CALLS;
    const utilization = inSpan / allowed;
    const answers = sandbox.controls.rateLimitAnswers();
    const s = limiter.stats();
    const expected = WINDOW_MS / (WINDOW_MS + s.marginMs);
    const details = [
      `sandbox limit ${CALLS} calls per ${WINDOW_MS} ms (sliding); client limit the same, concurrency ${config.rate_limit.concurrency}`,
      `${inSpan} calls arrived in the ${windows} windows from the first arrival, of ${allowed} allowed`,
      `most arrivals in any ${WINDOW_MS} ms: ${maxInWindow(arrivals, WINDOW_MS)}; client-side proof maxInWindow ${s.maxInWindow}`,
      `derived margin ${s.marginMs.toFixed(1)} ms per window (p90 round trip + 1 ms tick; mean call ${s.meanCallMs.toFixed(2)} ms, max ${s.maxCallMs} ms), spacing ${s.spacingMs.toFixed(3)} ms -> expected utilisation ${expected.toFixed(4)}`,
      `event-loop delay p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms; lateness forgiven (stalls too long to catch up) ${Math.round(s.forgivenMs)} ms`,
      `rate-limit answers ${answers}, slow-downs ${s.slowDowns}; X-RateLimit-Remaining 0 answers ${s.noneRemaining} (a window the client filled itself; held back for another client: ${s.heldForOthers})`,
    ].join('; ');
    return { limiter_utilization: Number(utilization.toFixed(4)), rate_limit_answers: answers, windows, calls: inSpan, details };
  } finally {
    await sandbox.close();
  }
}
