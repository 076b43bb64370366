import { ApiClient } from '../../src/api/client.js';
import { createLogger } from '../../src/log/logger.js';
import type { Config } from '../../src/config/index.js';
import { RateLimiter } from '../../src/queue/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';

type ClientOptions = ConstructorParameters<typeof ApiClient>[0];

/** An ApiClient for a test's own sandbox, with the sandbox's credentials and quick retries; `over` wins. */
export function sandboxClient(sandbox: Sandbox, config: Config, over: Partial<ClientOptions> = {}): ApiClient {
  return new ApiClient({
    baseUrl: sandbox.url,
    credentials: { login: config.sandbox.login, password: config.sandbox.password },
    engines: config.paths,
    limiter: new RateLimiter({ calls: 1000, windowMs: 1000, concurrency: 8 }),
    timeoutMs: 5000,
    retries: 3,
    retryBaseMs: 2,
    tasksPerPost: 100,
    logger: createLogger({ level: 'silent' }),
    ...over,
  });
}
