/**
 * The sandbox's answers for the families with emulation of their own, one line each; a family of the registry
 * (src/families/registry.ts) without a line here is answered from its models (../generated.ts).
 */
import { FAMILIES } from '../../families/index.js';
import type { FamilySandbox, LoadedSandboxes } from '../family.js';

type Loader = () => Promise<{ default: FamilySandbox }>;

export const FAMILY_SANDBOXES: Readonly<Record<string, Loader>> = {
  appendix: () => import('./appendix/sandbox.js'),
  content_generation: () => import('./content_generation/sandbox.js'),
  domain_analytics: () => import('./domain_analytics/sandbox.js'),
  keywords_data: () => import('./keywords_data/sandbox.js'),
  merchant: () => import('./merchant/sandbox.js'),
  on_page: () => import('./on_page/sandbox.js'),
  serp: () => import('./serp/emulator.js'),
};

/** The sandbox part of a family: its own emulation, else the answers its models describe. */
export const sandboxOf = (family: string): Loader => FAMILY_SANDBOXES[family] ?? (() => import('../generated.js'));

let loading: Promise<LoadedSandboxes> | null = null;

/** Loads every family's sandbox part once per process (startSandbox puts it in the context before it listens). */
export function loadFamilySandboxes(): Promise<LoadedSandboxes> {
  loading ??= (async () => {
    const out: LoadedSandboxes = { handlers: new Map(), live: new Map(), results: new Map(), specialGet: new Map(), billed: new Map(), fallbacks: [] };
    for (const f of FAMILIES) {
      const s = (await sandboxOf(f.name)()).default;
      for (const [id, h] of Object.entries(s.handlers ?? {})) out.handlers.set(id, h);
      for (const [id, c] of Object.entries(s.live ?? {})) out.live.set(id, c);
      for (const [kind, g] of Object.entries(s.results ?? {})) out.results.set(kind, g);
      for (const [kind, g] of Object.entries(s.specialGet ?? {})) out.specialGet.set(kind, g);
      for (const [kind, b] of Object.entries(s.billed ?? {})) out.billed.set(kind, b);
      if (s.fallback) out.fallbacks.push(s.fallback);
    }
    return out;
  })();
  return loading;
}
