/**
 * A value in the live service's shape with every field a client model declares set (the committed declarations,
 * src/families/generated/models.json): a polymorphic list holds one element of each item type, a lone polymorphic
 * object takes the item type `pick` chooses (callers vary it across results to cover every type). Values follow
 * field names as the live service fills them (timestamps for dates, URLs for links), so typed columns can take them.
 */
import { MODELS, modelFields } from '../../src/families/generated.js';
import { FAMILIES } from '../../src/families/index.js';

const MAX_DEPTH = 10;

/** The item type each model stands for where a polymorphic model lists it (`organic` -> its model). */
const TYPE_OF = new Map<string, string>();
for (const m of Object.values(MODELS)) for (const [t, variant] of Object.entries(m.variants ?? {})) if (!TYPE_OF.has(variant)) TYPE_OF.set(variant, t);

/** Item types of models no polymorphic model lists, by model (the live service's `type` of such an object). */
export type TypeNames = Readonly<Record<string, string>>;

const TIME = /(date|time|timestamp|datetime|_seen|_at|date_from|date_to|_visited)$|^(date|datetime|time)|last_modified/;

function scalar(type: string, field: string, parent: string): unknown {
  if (type === 'boolean') return true;
  if (type === 'integer') return 7;
  if (type === 'time') return '2024-01-02 03:04:05 +00:00';
  if (type === 'number') return /(^|_)(latitude|longitude|value|ratio|share|competition|cpc|bid|score)$|^price$/.test(field) ? 4.5 : 7;
  const n = field.toLowerCase();
  if ((TIME.test(n) || TIME.test(parent)) && !/(count|type|_ms)$/.test(n)) return '2024-01-02 03:04:05 +00:00';
  if (/(url|link|href)$/.test(n)) return 'https://www.example.com/page';
  if (/domain$/.test(n)) return 'www.example.com';
  return `${field} text`;
}

/** How many item types a polymorphic object reachable without crossing a list has at most (1 without one). */
function span(model: string, depth = 0, seen = new Set<string>()): number {
  const m = MODELS[model];
  if (!m || depth > MAX_DEPTH || seen.has(model)) return 1;
  if (m.variants) return Object.keys(m.variants).length;
  let most = 1;
  for (const [, type] of modelFields(model)) if (MODELS[type]) most = Math.max(most, span(type, depth + 1, new Set([...seen, model])));
  return most;
}

function valueOf(type: string, field: string, parent: string, pick: number, depth: number, names: TypeNames): unknown {
  if (type === 'any') return { value: `${field} any` };
  const map = /^map<(.+)>$/.exec(type);
  if (map) return { first_key: valueOf(map[1], field, parent, pick, depth + 1, names) };
  const list = /^(.+)\[\]$/.exec(type);
  if (list) {
    if (depth >= MAX_DEPTH) return [];
    const el = list[1];
    if (!MODELS[el]) return [valueOf(el, field, parent, pick, depth + 1, names)];
    const n = MODELS[el].variants ? Object.keys(MODELS[el].variants!).length : span(el);
    return Array.from({ length: n }, (_, i) => sampleOf(el, i, names, depth + 1, field));
  }
  if (MODELS[type]) return depth >= MAX_DEPTH ? null : sampleOf(type, pick, names, depth + 1, field);
  return scalar(type, field, parent);
}

/** An object of model `name` with every field set; a polymorphic model becomes its `pick`-th item type (mod their count). */
export function sampleOf(name: string, pick = 0, names: TypeNames = {}, depth = 0, field = ''): Record<string, unknown> {
  const m = MODELS[name];
  if (!m) throw new Error(`no model ${name} in the generated declarations`);
  if (m.variants) {
    const entries = Object.entries(m.variants);
    const [itemType, variant] = entries[pick % entries.length];
    return { ...sampleOf(variant, pick, names, depth, field), [m.discriminator ?? 'type']: itemType };
  }
  const out = Object.fromEntries(modelFields(name).map(([f, type]) => [f, valueOf(type, f, field, pick, depth, names)]));
  const itemType = names[name] ?? TYPE_OF.get(name);
  if ('type' in out && itemType) out.type = itemType;
  return out;
}

/** Results of model `name` covering every item type of its lone polymorphic objects: one per type. */
export function samplesOf(name: string, names: TypeNames = {}): Record<string, unknown>[] {
  return Array.from({ length: span(name) }, (_, i) => sampleOf(name, i, names));
}

/** The `type` the live service gives objects of models that no polymorphic model lists. */
export const ITEM_TYPE_NAMES: TypeNames = {
  GoogleShoppingCarouselElement: 'google_shopping_carousel_element',
  GoogleShoppingSponsoredCarouselElement: 'google_shopping_sponsored_carousel_element',
  DomainAnalyticsTechnologiesDomainsByLiveItem: 'domain_technology_item',
  AiModeAiOverviewInfo: 'ai_overview',
};

/**
 * Every endpoint whose results land in the tables a family declares by hand (SERP, merchant, on-page resources,
 * the account, ...) and whose client model the declarations hold: the result kinds whose columns are not derived
 * from the models, so a model field can be missing from them.
 */
export function handDeclaredResults(): { endpointId: string; kind: string; model: string }[] {
  const out: { endpointId: string; kind: string; model: string }[] = [];
  for (const f of FAMILIES) {
    const kinds = new Set((f.tables ?? []).map((t) => t.resultKind).filter(Boolean));
    for (const e of f.endpoints) {
      const model = e.model?.result.replace(/\[\]$/, '');
      if (kinds.has(e.result) && model && MODELS[model]) out.push({ endpointId: e.id, kind: e.result, model });
    }
  }
  return out;
}
