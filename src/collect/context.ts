/** What the collect stage (and posting, which hands it the posted tasks) is given by the run. */
import type { ApiClient } from '../api/client.js';
import type { Logger } from '../log/logger.js';
import type { Config } from '../config/index.js';
import type { Ledger } from '../ledger/index.js';
import type { Budget, Pipeline } from '../pipeline/index.js';
import type { PauseHook } from '../pause.js';
import type { Progress } from '../run/progress.js';
import type { LoadPort, Sink } from './outcome.js';


export interface CollectContext {
  config: Config;
  pipeline: Pipeline;
  runId: string;
  /** Read only here: every ledger move is an Outcome handed to the load channel. */
  ledger: Ledger;
  client: ApiClient;
  logger: Logger;
  progress: Pick<Progress, 'add' | 'counts'>;
  /** The run's load channel: results and ledger moves go nowhere else. */
  load: LoadPort;
  /** Hands an outcome to the load channel and resolves once it is committed (its transaction cut at once). */
  sink: Sink;
  /** Resolves once everything handed to the load channel is committed. */
  settled: () => Promise<void>;
  /** The raw archive's root (`<data>/raw`): answers an earlier attempt received are recovered from it. */
  rawDir: string;
  /** When this attempt opened the run: tasks posted before it are collected by polling, whatever their mode. */
  attemptStartedAt: Date;
  /** The one answer to "may I spend X?" for posting and live calls alike. */
  budget: Budget;
  pause: PauseHook;
  /** The clock (epoch ms; a test seam): which tasks are too old for tasks_ready to list. */
  now?: () => number;
}
