/**
 * The sandbox's notion of "now". Task completion, the 30-day retention, the 24-hour tasks_fixed window and E13's
 * 7 days all read it, so a test can jump a month ahead instead of waiting.
 */
export interface SandboxClock {
  /** Milliseconds since the epoch, as the sandbox sees it. */
  now(): number;
  /** Moves the clock forward (a negative value moves it back). */
  advance(ms: number): void;
}

/** Real time plus an offset that `advance` grows: completion delays still pass on their own. */
export function systemClock(offsetMs = 0): SandboxClock {
  let offset = offsetMs;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

/**
 * Real time moved onto another day: the date is `day` (YYYY-MM-DD, UTC), the time of day and its passing are real.
 * The embedded sandbox runs on the run's date this way, so runs dated several days apart show several days of
 * rank history and monthly volumes, as the live service would have served them on those days.
 */
export function clockOnDay(day: string, wallNow: () => number = Date.now): SandboxClock {
  const [y, m, d] = day.split('-').map(Number);
  const wall = wallNow();
  const today = Math.floor(wall / DAY_MS) * DAY_MS;
  let offset = Date.UTC(y!, m! - 1, d!) - today;
  return {
    now: () => wallNow() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

/** A clock that only moves when advanced, for tests that must not depend on the wall clock. */
export function manualClock(startMs = Date.UTC(2026, 0, 1)): SandboxClock {
  let t = startMs;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

export const DAY_MS = 86_400_000;
