/** A mover in one line, for the end-of-run notice and the terminal. */
import type { Mover } from './data.js';

export function moverLine(m: Mover): string {
  const sign = m.change > 0 ? `+${m.change}` : String(m.change);
  return `${m.domain} ${sign} for "${m.keyword}" (${m.locationCode ?? 'any location'}, ${m.device}): ${m.previous ?? '-'} -> ${m.position ?? '-'}${m.tracked ? ' [tracked]' : ''}`;
}
