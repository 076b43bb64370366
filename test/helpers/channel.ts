/** A load channel for collector tests: its commits hand the results (and failures) to the test instead of DuckDB. */
import { LoadChannel, resultsOf, type ChannelOptions } from '../../src/load/index.js';
import type { CollectedTask } from '../../src/normalize/extract.js';

export function channelOf(
  load: (results: CollectedTask[]) => Promise<void>,
  opts: Omit<ChannelOptions, 'commit'> & { onFailed?: (serviceId: string) => Promise<void> } = {},
): LoadChannel {
  const { onFailed, ...rest } = opts;
  return new LoadChannel({
    ...rest,
    commit: async (batch) => {
      for (const o of batch) if (o.kind === 'failed') await onFailed?.(o.ref);
      const results = batch.flatMap((o) => [...resultsOf(o)]);
      if (results.length) await load(results);
    },
  });
}
