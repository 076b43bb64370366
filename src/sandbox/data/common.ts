/** Small helpers the data generators share. */
import { formatTimestamp } from '../../api/envelope.js';

/** The keyword as the service reports it: %## decoded and '+' turned into a space. */
export function decodeKeyword(keyword: string): string {
  const spaced = keyword.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

export function ts(ms: number): string {
  return formatTimestamp(new Date(ms));
}

/** The search engine's domain for an engine segment, unless the task named one. */
export function seDomainFor(engine: string, given: unknown): string {
  return typeof given === 'string' && given ? given : `www.${engine.replace(/_/g, '-')}.com`;
}
