/** What collection hands to the load channel (src/load/outcome.ts owns the type; collect only produces them). */
export type { Outcome, Sink } from '../load/outcome.js';
export type { LoadPort, Hold, Committed } from '../load/channel.js';
