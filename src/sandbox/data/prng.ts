/**
 * Seeded randomness for the sandbox's data. Results must be the same for the same request, so every generator
 * takes a seed derived from the request (FNV-1a of its canonical JSON) and draws from mulberry32, which is
 * fast enough for the benchmark's 100k keyword rows.
 */

/** FNV-1a, 32 bit. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export { canonicalJson } from '../../canonical-json.js';
import { canonicalJson } from '../../canonical-json.js';

/** The seed of a request: its endpoint and its parameters, independent of key order. */
export function seedOf(...parts: unknown[]): number {
  return hashString(parts.map((p) => (typeof p === 'string' ? p : canonicalJson(p))).join('\u0000'));
}

export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** mulberry32: uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  /** Number in [min, max) rounded to `decimals`. */
  float(min: number, max: number, decimals = 2): number {
    const f = 10 ** decimals;
    return Math.round((min + this.next() * (max - min)) * f) / f;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** `n` distinct items (or all of them when there are fewer). */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = items.slice();
    const out: T[] = [];
    while (out.length < n && copy.length) out.push(copy.splice(Math.floor(this.next() * copy.length), 1)[0]);
    return out;
  }
  hex(length: number): string {
    let s = '';
    while (s.length < length) s += Math.floor(this.next() * 0x100000000).toString(16).padStart(8, '0');
    return s.slice(0, length);
  }
  /** A child generator, so that adding draws in one part of a result does not shift the others. */
  fork(label: string | number): Rng {
    return new Rng(hashString(String(label), this.state ^ 0x9e3779b9));
  }
}

export function rngFor(...parts: unknown[]): Rng {
  return new Rng(seedOf(...parts));
}
