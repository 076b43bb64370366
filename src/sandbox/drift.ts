/**
 * How the sandbox's generated data moves from one day to the next, as live data does: slowly. Pure functions of a
 * seed and a day number (days since 1970-01-01 UTC), so any day can be asked for in any order.
 *
 * A metric is a base value times a factor that walks between weekly knots, each within ±MAX_SWING of 1 and joined
 * by straight lines: the factor moves at most 2 * MAX_SWING / KNOT_DAYS of the base a day, under 3% of the value.
 */
import { Rng, hashString } from './data/prng.js';

const KNOT_DAYS = 7;
const MAX_SWING = 0.08;
/** Days an item of a list keeps its place, at least and at most, before another takes it. */
const STAY_DAYS: readonly [number, number] = [14, 60];

const knot = (seed: number, k: number) => (hashString(String(k), seed) / 4294967296) * 2 - 1;

/** The factor (within 1 ± MAX_SWING) of a metric seeded by `seed` on day `dayIndex`. */
export function driftFactor(seed: number, dayIndex: number): number {
  const d = Math.floor(dayIndex);
  const k = Math.floor(d / KNOT_DAYS);
  const t = (d - k * KNOT_DAYS) / KNOT_DAYS;
  return 1 + MAX_SWING * (knot(seed, k) * (1 - t) + knot(seed, k + 1) * t);
}

/** `base` on day `dayIndex`, rounded to `decimals` (whole numbers by default). */
export function drifted(base: number, seed: number, dayIndex: number, decimals = 0): number {
  const f = 10 ** decimals;
  return Math.round(base * driftFactor(seed, dayIndex) * f) / f;
}

/** A position (1 = first) on day `dayIndex`: a few places up or down around `base`, never above the first. */
export function driftedPosition(base: number, seed: number, dayIndex: number): number {
  return Math.max(1, base + Math.round(((driftFactor(seed, dayIndex) - 1) / MAX_SWING) * 2));
}

/**
 * Which item holds a place of a list on day `dayIndex`: each place keeps its item for a stretch of days of its own
 * length (from `rng`, the place's), then the next generation's item takes it, so a list changes a little at a time.
 */
export function generation(rng: Rng, dayIndex: number): number {
  const stay = rng.int(STAY_DAYS[0], STAY_DAYS[1]);
  return Math.floor((Math.floor(dayIndex) + rng.int(0, stay - 1)) / stay);
}
