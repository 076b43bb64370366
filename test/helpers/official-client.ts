/**
 * How the official client (npm dataforseo-client) reaches a sandbox: its documented way to authenticate, a fetch
 * that adds the Authorization header, which also keeps each raw answer (the client's model instances declare every
 * field, so presence is checked on what was sent).
 */
export interface ClientHttp {
  http: { fetch: (url: string | URL | Request, init?: RequestInit) => Promise<Response> };
  /** The JSON body of the last answer. */
  lastRaw(): unknown;
}

export function clientHttp(login: string, password: string): ClientHttp {
  const auth = `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  let last: unknown;
  return {
    http: {
      fetch: async (url, init) => {
        const r = await fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), Authorization: auth } });
        last = await r.clone().json();
        return r;
      },
    },
    lastRaw: () => last,
  };
}
