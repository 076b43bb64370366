/**
 * SERP result tables (organic, news, images, maps, local pack of every engine). Every item of an advanced or
 * regular result lands in one items table whose common columns (type, rank_group, rank_absolute, page, position,
 * xpath, domain, url, title, description) rank every item in one query; the columns of one item type are null for
 * the others, and nested lists are child tables that apply to their item types only. An item type the catalog
 * does not know keeps its common columns and the rest of the item in `extra`, and is counted in the run summary.
 */
import type { ColumnDef, DuckType, TableDef } from '../../catalog/table.js';
import { RENAMED_FIELDS } from '../../catalog/renamed.js';
import { c, ts, scalarChild as scalars } from '../../catalog/declare.js';
import { SERP_CLASS_FIELDS, SERP_FIELD_TYPES, SERP_ITEM_CLASSES } from './models.generated.js';

const json = (name: string, description: string, path: string = name): ColumnDef => c(name, 'JSON', description, path, 'json');
/** A JSON field SQL reserves the name of (`table`), in its renamed column (RENAMED_FIELDS). */
const renamedJson = (field: string, description: string): ColumnDef => {
  const r = RENAMED_FIELDS[field];
  return { ...json(r.column, description, field), ...(r.formerly ? { formerly: r.formerly } : {}) };
};

/** The item bases of the catalog's SERP types (client result models' `items`): every type they map is typed. */
const ITEM_BASES = ['BaseSerpApiElementItem', 'BaseBingSerpApiElementItem', 'BaseSerpApiGoogleNewsElementItem', 'BaseSerpApiGoogleImagesElementItem', 'BaseSerpApiGoogleMapsElementItem'] as const;

/** Item types the SERP tables know, as the live service names them (no engine prefix): every type of the client's models. */
export const SERP_ITEM_TYPES: readonly string[] = [...new Set(ITEM_BASES.flatMap((b) => Object.keys(SERP_ITEM_CLASSES[b] ?? {})))].sort();

/** Item types of a base-class list that declare field `field` (`items`, `links`, ...). */
const typesWith = (field: string, bases: readonly string[] = ITEM_BASES): string[] =>
  [...new Set(bases.flatMap((b) => Object.entries(SERP_ITEM_CLASSES[b] ?? {}).filter(([, cls]) => SERP_CLASS_FIELDS[cls]?.[field]).map(([t]) => t)))].sort();

/** Item types whose field `field` is a list of strings (the answer box's `text`). */
const typesWithList = (field: string, bases: readonly string[] = ITEM_BASES): string[] =>
  [...new Set(bases.flatMap((b) => Object.entries(SERP_ITEM_CLASSES[b] ?? {}).filter(([, cls]) => SERP_CLASS_FIELDS[cls]?.[field] === 'string[]').map(([t]) => t)))].sort();

/** The classes a declared type stands for: a class, or every subclass of a polymorphic base. */
function classesOf(type: string): string[] {
  const name = type.replace(/\[\]$/, '');
  const subs = SERP_ITEM_CLASSES[name];
  return subs ? [...new Set(Object.values(subs))] : SERP_CLASS_FIELDS[name] ? [name] : [];
}

/** Element classes of field `field` of the given item types (`items` of discussions_and_forums -> DiscussionsAndForumsElement). */
function elementClasses(field: string, types: readonly string[], bases: readonly string[] = ITEM_BASES): string[] {
  const out = new Set<string>();
  for (const b of bases) for (const t of types) {
    const cls = SERP_ITEM_CLASSES[b]?.[t];
    const ft = cls ? SERP_CLASS_FIELDS[cls]?.[field] : undefined;
    if (ft) for (const e of ft.split('|').map((x) => x.trim())) classesOf(e).forEach((k) => out.add(k));
  }
  return [...out].sort();
}

const SCALAR: Record<string, DuckType> = { string: 'VARCHAR', boolean: 'BOOLEAN' };
/** Whole numbers by the models' naming (counts, ranks, pages); other numbers are DOUBLE. */
/**
 * A scalar field's column type by the classes declaring it: BIGINT for a number every one types integer, TIMESTAMPTZ
 * for a string every one's note gives a time format (SERP_FIELD_TYPES, `make declarations`). A number the
 * specification's facts lack (a field newer than them) is whole when its name counts something.
 */
/** Whole numbers by the models' naming (counts, ranks, pages), where the facts say nothing. */
const isCount = (name: string) => /(^|_)(count|rank_group|rank_absolute|page|votes_count|position_in_group)$/.test(name) || name.endsWith('_count');

function scalarType(t: string, field: string, owners: Iterable<string>): DuckType | undefined {
  const refined = [...owners].map((cls) => SERP_FIELD_TYPES[cls]?.[field]);
  if (t === 'number' && refined.every((r) => r === undefined)) return isCount(field) ? 'BIGINT' : 'DOUBLE';
  if (t === 'number') return refined.every((r) => r === 'integer') ? 'BIGINT' : 'DOUBLE';
  if (t === 'string' && refined.every((r) => r === 'time')) return 'TIMESTAMPTZ';
  return SCALAR[t];
}

/**
 * The columns the client's models declare for `classes` that the hand-written `declared` columns, the child tables
 * (`childPaths`) and `ignored` do not cover: scalars typed, `rating`-like objects flattened, the rest kept as JSON.
 * This is how every item type is typed without a hand-kept list: a new model field becomes a column.
 */
export function modelColumns(classes: readonly string[], declared: readonly ColumnDef[], childPaths: readonly string[] = [], ignored: readonly string[] = []): ColumnDef[] {
  const covered = (f: string) => declared.some((d) => d.path === f || d.path.startsWith(`${f}.`) || d.alt === f) || childPaths.includes(f) || ignored.includes(f) || f === 'type';
  const byField = new Map<string, { types: Set<string>; owners: Set<string> }>();
  for (const cls of classes) {
    for (const [f, t] of Object.entries(SERP_CLASS_FIELDS[cls] ?? {})) {
      if (covered(f)) continue;
      const e = byField.get(f) ?? { types: new Set(), owners: new Set() };
      e.types.add(t.replace(/\s+/g, ''));
      e.owners.add(cls);
      byField.set(f, e);
    }
  }
  const out: ColumnDef[] = [];
  // A flattened field's column never takes a name a declared column or another field has (`image_url`).
  const taken = new Set([...declared.map((d) => d.name), ...byField.keys()]);
  for (const [f, { types, owners }] of [...byField].sort(([a], [b]) => a.localeCompare(b))) {
    const of = `(${[...owners].slice(0, 4).join(', ')}${owners.size > 4 ? `, +${owners.size - 4}` : ''})`;
    const [t] = types;
    const flat = types.size === 1 ? scalarObject(t) : undefined;
    const scalar = types.size === 1 ? scalarType(t, f, owners) : undefined;
    if (scalar) out.push(c(f, scalar, `\`${f}\` ${of}.`));
    else if (types.size === 1 && t === 'RatingInfo') out.push(...RATING(f, titleOf(f)));
    else if (types.size === 1 && t === 'AiModeRectangleInfo') out.push(...RECTANGLE(f));
    else if (RENAMED_FIELDS[f]?.formerly) out.push(renamedJson(f, `\`${f}\` ${of}, as JSON.`));
    else if (flat) {
      // An object of scalars (a price, product identifiers): a typed column per field, the object kept as JSON beside.
      out.push(c(f, 'JSON', `\`${f}\` ${of}, as JSON; \`${f}_*\` columns type its fields.`, f, 'json'));
      for (const [sub, st] of flat) {
        if (taken.has(`${f}_${sub}`)) continue;
        taken.add(`${f}_${sub}`);
        out.push(c(`${f}_${sub}`, scalarType(st, sub, [t]) ?? 'VARCHAR', `\`${f}.${sub}\` ${of}.`, `${f}.${sub}`));
      }
    } else out.push(c(f, 'JSON', `\`${f}\` ${of}, as JSON.`, f, 'json'));
  }
  return out;
}

/** The fields of a class whose fields are all scalars (PriceInfo, ProductIdentifiers), or undefined. */
function scalarObject(cls: string): [string, string][] | undefined {
  const fields = SERP_CLASS_FIELDS[cls];
  if (!fields) return undefined;
  const all = Object.entries(fields);
  return all.length > 0 && all.every(([, t]) => SCALAR[t] || t === 'number') ? all : undefined;
}
const titleOf = (f: string) => f.replace(/_/g, ' ').replace(/^./, (x) => x.toUpperCase());

const HEAD: ColumnDef[] = [
  c('keyword', 'VARCHAR', 'Keyword of the task (decoded).'),
  c('se_type', 'VARCHAR', 'Result type: organic, news, images, maps or local_pack.', 'type'),
  c('se_domain', 'VARCHAR', 'Search engine domain.'),
  c('location_code', 'BIGINT', 'Location code.'),
  c('language_code', 'VARCHAR', 'Language code.'),
  ts('datetime', 'When the result was received (UTC).'),
];

const RESULT_COLUMNS: ColumnDef[] = [
  ...HEAD,
  c('check_url', 'VARCHAR', 'Direct URL of the result page, for verification.'),
  c('spell_keyword', 'VARCHAR', 'Keyword after the engine\'s autocorrection; null without one.', 'spell.keyword'),
  c('spell_type', 'VARCHAR', 'Autocorrection type: did_you_mean, showing_results_for, no_results_found_for, including_results_for.', 'spell.type'),
  c('se_results_count', 'BIGINT', 'Number of results the engine reported.'),
  c('pages_count', 'BIGINT', 'Result pages crawled (billed pages).'),
  c('items_count', 'BIGINT', 'Number of elements in `items`.'),
  c('includes_non_news_search_results', 'BOOLEAN', 'Whether a news result also lists results that are not news (Google News).'),
  json('refinement_chips', 'Refinement chips above the results, as JSON.'),
];

const RATING = (prefix: string, what: string): ColumnDef[] => [
  c(`${prefix}_type`, 'VARCHAR', `${what} rating type: Max5, Percents or CustomMax.`, `${prefix}.rating_type`),
  c(`${prefix}_value`, 'DOUBLE', `${what} rating value.`, `${prefix}.value`),
  c(`${prefix}_votes_count`, 'BIGINT', `Votes of the ${what.toLowerCase()} rating.`, `${prefix}.votes_count`),
  c(`${prefix}_max`, 'DOUBLE', `Maximum of the ${what.toLowerCase()} rating type.`, `${prefix}.rating_max`),
];

/** Pixel position of an element, where calculate_rectangles asked for it (client `AiModeRectangleInfo`). */
const RECTANGLE = (prefix: string): ColumnDef[] => ['x', 'y', 'width', 'height'].map((k) =>
  c(`${prefix}_${k}`, 'DOUBLE', `${k === 'x' || k === 'y' ? `${k.toUpperCase()} of the top left corner` : k[0].toUpperCase() + k.slice(1)} of the element in pixels (with calculate_rectangles).`, `${prefix}.${k}`));

/** Columns every SERP item has (common) and those of the item types, flattened; a type's columns are null on the others. */
const ITEM_COLUMNS: ColumnDef[] = [
  c('item_type', 'VARCHAR', 'Item type without an engine prefix (`organic`, `paid`, `maps_search`, ...).', 'type', 'item_type'),
  c('type', 'VARCHAR', 'Item type as the service wrote it.'),
  c('rank_group', 'BIGINT', 'Position among items of the same type.'),
  c('rank_absolute', 'BIGINT', 'Position among all items of the result.'),
  c('page', 'BIGINT', 'Result page the item was found on.'),
  c('position', 'VARCHAR', 'Alignment in the page: left or right.'),
  c('xpath', 'VARCHAR', 'XPath of the element.'),
  c('domain', 'VARCHAR', 'Domain of the result.'),
  c('url', 'VARCHAR', 'URL of the result.'),
  c('title', 'VARCHAR', 'Title.'),
  c('description', 'VARCHAR', 'Description (snippet).'),
  // organic, paid, featured_snippet
  c('breadcrumb', 'VARCHAR', 'Breadcrumb shown with the URL (organic, paid, featured_snippet).'),
  c('website_name', 'VARCHAR', 'Website name shown with the result (organic, paid).'),
  c('is_image', 'BOOLEAN', 'The result shows an image (organic, paid).'),
  c('is_video', 'BOOLEAN', 'The result shows a video (organic, paid).'),
  c('is_featured_snippet', 'BOOLEAN', 'The organic result is also the featured snippet (organic).'),
  c('is_malicious', 'BOOLEAN', 'Marked as possibly malicious (organic).'),
  c('is_web_story', 'BOOLEAN', 'A web story (organic).'),
  c('amp_version', 'BOOLEAN', 'Has an AMP version (organic, top stories elements).'),
  c('cache_url', 'VARCHAR', 'Cached copy of the page (organic).'),
  c('related_search_url', 'VARCHAR', 'URL of the related search (organic).'),
  c('pre_snippet', 'VARCHAR', 'Text shown before the snippet (organic).'),
  c('extended_snippet', 'VARCHAR', 'Extended snippet (organic).'),
  c('featured_title', 'VARCHAR', 'Title of the featured snippet (featured_snippet).'),
  ts('timestamp', 'Date and time shown with the result (organic, featured_snippet, news_search).'),
  ...RATING('rating', 'Item'),
  c('price_current', 'DOUBLE', 'Price shown (organic, paid).', 'price.current'),
  c('price_currency', 'VARCHAR', 'Currency of the price.', 'price.currency'),
  c('price_displayed', 'VARCHAR', 'Price as displayed.', 'price.displayed_price'),
  json('faq', 'FAQ box of an organic result, as JSON.'),
  json('about_this_result', 'About-this-result panel of an organic result, as JSON.'),
  renamedJson('table', 'Table of a featured snippet (`table`), as JSON.'),
  json('images', 'Images shown with the result (organic, paid, featured_snippet), as JSON.'),
  json('checks', 'Labels the engine put on the result (organic, paid), as JSON.'),
  json('related_result', 'Related results nested under an organic result, as JSON.'),
  json('extended_people_also_search', 'People-also-search queries shown under an organic result, as JSON.'),
  json('related_image_searches', 'Related image searches of an images block, as JSON.'),
  json('description_rows', 'Extended description rows of a paid result, as JSON.'),
  json('extra_info', 'Extra block of a paid result (description rows, ad links, price, rating), as JSON.', 'extra'),
  // knowledge_graph, local_pack, maps
  c('subtitle', 'VARCHAR', 'Subtitle (knowledge_graph, images_search).'),
  c('card_id', 'VARCHAR', 'Knowledge graph card id (knowledge_graph).'),
  c('image_url', 'VARCHAR', 'Image URL (knowledge_graph, news_search).'),
  c('logo_url', 'VARCHAR', 'Logo URL (knowledge_graph).'),
  c('cid', 'VARCHAR', 'Google customer id of the place, as text (knowledge_graph, local_pack, maps).'),
  c('phone', 'VARCHAR', 'Phone (local_pack, maps).'),
  c('booking_url', 'VARCHAR', 'Booking URL (local_pack).'),
  c('is_paid', 'BOOLEAN', 'A paid local pack entry (local_pack).'),
  c('is_claimed', 'BOOLEAN', 'The business claimed its listing (local_pack, maps).'),
  c('address', 'VARCHAR', 'Address (maps).'),
  c('address_city', 'VARCHAR', 'City (maps).', 'address_info.city'),
  c('address_zip', 'VARCHAR', 'Postal code (maps).', 'address_info.zip'),
  c('address_country_code', 'VARCHAR', 'Country code (maps).', 'address_info.country_code'),
  c('place_id', 'VARCHAR', 'Place id (maps).'),
  c('feature_id', 'VARCHAR', 'Feature id (maps).'),
  c('category', 'VARCHAR', 'Main category (maps).'),
  c('latitude', 'DOUBLE', 'Latitude (maps).'),
  c('longitude', 'DOUBLE', 'Longitude (maps).'),
  c('total_photos', 'BIGINT', 'Number of photos (maps).'),
  c('price_level', 'VARCHAR', 'Price level (maps).'),
  c('main_image', 'VARCHAR', 'Main image (maps).'),
  json('rating_distribution', 'Votes per star, as JSON (maps).'),
  json('work_hours', 'Opening hours, as JSON (maps).'),
  // news_search, images_search
  c('source', 'VARCHAR', 'Source name (news_search).'),
  c('snippet', 'VARCHAR', 'Snippet (news_search, maps).'),
  c('time_published', 'VARCHAR', 'Publication time as displayed (news_search).'),
  c('alt', 'VARCHAR', 'Image alt text (images_search).'),
  c('source_url', 'VARCHAR', 'Image source URL (images_search).'),
  c('encoded_url', 'VARCHAR', 'Encoded image URL (images_search).'),
  ...RECTANGLE('rectangle'),
];

/** Whole objects kept beside their flattened columns, so the fields not flattened are kept typed as JSON. */
const ITEM_OBJECTS: ColumnDef[] = [
  json('price', 'Price object (current, regular, max_value, currency, is_price_range, displayed_price), as JSON; `price_*` columns flatten the common fields.'),
  json('address_info', 'Address object (borough, address, city, zip, region, country_code) of a maps item, as JSON; `address_*` columns flatten the common fields.'),
];

const LINK_COLUMNS: ColumnDef[] = [
  c('item_type', 'VARCHAR', 'Element type.', 'type', 'item_type'),
  c('title', 'VARCHAR', 'Title.'), c('description', 'VARCHAR', 'Description.'), c('url', 'VARCHAR', 'URL.'), c('domain', 'VARCHAR', 'Domain.'),
];

/** Item types whose `items` have a table of their own; the `items` of every other type land in `__elements`. */
const OWN_ITEMS_TABLE = ['people_also_ask', 'top_stories', 'images', 'video', 'shopping', 'knowledge_graph', 'related_searches', 'people_also_search', 'ai_overview'];
const REFERENCE_COLUMNS: ColumnDef[] = [
  c('item_type', 'VARCHAR', 'ai_overview_reference.', 'type', 'item_type'),
  c('source', 'VARCHAR', 'Name of the cited source.'), c('domain', 'VARCHAR', 'Domain of the cited source.'), c('url', 'VARCHAR', 'URL of the cited source.'),
  c('title', 'VARCHAR', 'Title of the cited page.'), c('text', 'VARCHAR', 'Text the AI Overview took from it.'), c('position', 'VARCHAR', 'Where the reference is shown (left or right).'),
];
const references = (name: string, parent: string, what: string, only?: readonly string[]): TableDef => ({
  name, parent, extra: true, source: { kind: 'objects', path: 'references' }, ...(only ? { onlyForItemTypes: only } : {}),
  description: `Sources cited by ${what}, one row each in the order shown (\`_list_idx\` + 1 is the citation's position).`,
  columns: [...REFERENCE_COLUMNS, ...modelColumns(['AiModeAiOverviewReferenceInfo'], REFERENCE_COLUMNS)],
});
/** An AI Overview's elements (text, expanded, video, table parts): typed from every element class, references as child rows. */
function aiElements(name: string, parent: string, what: string, only: readonly string[], bases: readonly string[], refs = `${name}__references`): TableDef[] {
  const classes = [...new Set(bases.flatMap((b) => Object.values(SERP_ITEM_CLASSES[b] ?? {})))];
  const cols = [c('item_type', 'VARCHAR', 'ai_overview_element, ai_overview_expanded_element, ai_overview_video_element or ai_overview_table_element.', 'type', 'item_type'), c('title', 'VARCHAR', 'Title of the part.'), c('text', 'VARCHAR', 'Text of the part.'), c('markdown', 'VARCHAR', 'The part as markdown.')];
  return [
    {
      name, parent, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: only,
      // Known by their full names, so `ai_overview_paid` is not read as `paid` of another engine.
      knownItemTypes: [...new Set(bases.flatMap((b) => Object.keys(SERP_ITEM_CLASSES[b] ?? {})))].sort(),
      description: `Parts of ${what}, in the order shown; their cited sources are in \`${refs}\`.`, columns: [...cols, ...modelColumns(classes, cols, ['references'])],
    },
    references(refs, name, `a part of ${what}`),
  ];
}

/**
 * The advanced and regular results share the shape; each gets its own tables. Every item type of the client's
 * models is typed: the common and hand-described columns first, then a column for every other field a model
 * declares (`modelColumns`), and every list of objects a child table.
 */
function itemFamily(root: string, resultKind: 'serp_advanced' | 'serp_regular', what: string): TableDef[] {
  const items = `${root}__items`;
  // Every page's item classes, and AI Mode's answer (its items are AiModeAiOverviewInfo, of type ai_overview).
  const itemClasses = [...new Set([...ITEM_BASES.flatMap((b) => Object.values(SERP_ITEM_CLASSES[b] ?? {})), 'AiModeAiOverviewInfo'])];
  const childPaths = ['links', 'highlighted', 'items', 'references', 'additional_categories'];
  const declared = [...ITEM_COLUMNS, ...ITEM_OBJECTS];
  const elementTypes = typesWith('items').filter((t) => !OWN_ITEMS_TABLE.includes(t));
  const elementCols = [c('item_type', 'VARCHAR', 'Element type (`discussions_and_forums_element`, `popular_products_element`, ...).', 'type', 'item_type'),
    c('title', 'VARCHAR', 'Title.'), c('url', 'VARCHAR', 'URL.'), c('domain', 'VARCHAR', 'Domain.'), c('description', 'VARCHAR', 'Description.'), c('source', 'VARCHAR', 'Source shown.')];
  return [
    {
      name: root, parent: null, resultKind, extra: true,
      description: `${what} SERP results (organic, news, images, maps, local pack of every engine), one row per result; items are in \`${items}\`.`,
      columns: RESULT_COLUMNS, ignored: [{ path: 'item_types', why: `derivable from \`${items}.item_type\`` }],
    },
    {
      name: items, parent: root, extra: true, source: { kind: 'objects', path: 'items' }, knownItemTypes: SERP_ITEM_TYPES,
      description: `Every item of a ${what.toLowerCase()} result in one table, ranked by \`rank_absolute\` (and \`rank_group\` within its \`item_type\`); columns of other item types are null. An AI Overview is a row of type \`ai_overview\` (\`asynchronous_ai_overview\`, \`markdown\`), its parts and cited sources child rows. Every type of the client's models is typed; an unknown one keeps its common columns plus \`extra\`, and is counted in the run summary and \`v_serp_unknown_item_types\`.`,
      columns: [...declared, ...modelColumns(itemClasses, declared, childPaths)],
    },
    {
      name: `${items}__links`, parent: items, extra: true, source: { kind: 'objects', path: 'links' }, onlyForItemTypes: typesWith('links'),
      description: 'Links of an item (sitelinks of organic and paid results, links of answer boxes and other features).', columns: [...LINK_COLUMNS, ...modelColumns(elementClasses('links', typesWith('links')), LINK_COLUMNS)],
    },
    scalars(`${items}__highlighted`, items, 'highlighted', c('text', 'VARCHAR', 'Highlighted words.', '$'), 'Words highlighted in an organic or paid snippet.', typesWith('highlighted')),
    // `text` is a string of most item types and a list of lines of the answer box: the lines, typed, one row each.
    scalars(`${items}__text`, items, 'text', c('text', 'VARCHAR', 'A line of the text.', '$'), 'Lines of the text of an item whose `text` is a list (the answer box), in order; `text` keeps them as JSON.', typesWithList('text')),
    {
      name: `${items}__elements`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: elementTypes,
      description: 'Elements of every feature without a table of its own (popular products, discussions and forums, perspectives, short videos, carousels, jobs, ...), typed from each element class of the client\'s models.',
      columns: [...elementCols, ...modelColumns(elementClasses('items', elementTypes), elementCols)],
    },
    ...aiElements(`${items}__ai_overview_elements`, items, 'an AI Overview (or an AI Mode answer)', ['ai_overview'], ['BaseSerpApiAiOverviewElementItem', 'BaseSerpApiBingAiOverviewElementItem', 'BaseSerpApiAiModeAiOverviewElementItem']),
    references(`${items}__ai_overview_references`, items, 'an AI Overview (the `references` of the `ai_overview` item)', typesWith('references')),
    ...peopleAlsoAskTables(items),
    {
      name: `${items}__top_stories`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['top_stories'],
      description: 'Stories of a top-stories item.',
      columns: withModel(['TopStoriesElement'], [c('item_type', 'VARCHAR', 'top_stories_element.', 'type', 'item_type'), c('source', 'VARCHAR', 'Publisher.'), c('domain', 'VARCHAR', 'Domain.'), c('title', 'VARCHAR', 'Headline.'), c('date', 'VARCHAR', 'Date as displayed.'), c('amp_version', 'BOOLEAN', 'Has an AMP version.'), ts('timestamp', 'Publication time.'), c('url', 'VARCHAR', 'URL.'), c('image_url', 'VARCHAR', 'Image.'), c('badges', 'JSON', 'Badges shown on the story, as JSON.', 'badges', 'json')]),
    },
    {
      name: `${items}__images`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['images'],
      description: 'Images of an images item.',
      columns: withModel(elementClasses('items', ['images']), [c('item_type', 'VARCHAR', 'images_element.', 'type', 'item_type'), c('alt', 'VARCHAR', 'Alt text.'), c('url', 'VARCHAR', 'Page URL.'), c('image_url', 'VARCHAR', 'Image URL.')]),
    },
    {
      name: `${items}__video`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['video'],
      description: 'Videos of a video item.',
      columns: withModel(elementClasses('items', ['video']), [c('item_type', 'VARCHAR', 'video_element.', 'type', 'item_type'), c('source', 'VARCHAR', 'Platform.'), c('title', 'VARCHAR', 'Title.'), ts('timestamp', 'Upload time.'), c('url', 'VARCHAR', 'URL.'), c('preview', 'VARCHAR', 'Preview image.')]),
    },
    {
      name: `${items}__shopping`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['shopping'],
      description: 'Products of a shopping item.',
      columns: withModel(elementClasses('items', ['shopping']), [
        c('item_type', 'VARCHAR', 'shopping_element.', 'type', 'item_type'), c('title', 'VARCHAR', 'Product.'), c('price_current', 'DOUBLE', 'Price.', 'price.current'),
        c('price_currency', 'VARCHAR', 'Currency.', 'price.currency'), c('price_displayed', 'VARCHAR', 'Price as displayed.', 'price.displayed_price'), json('price', 'Price object, as JSON.'), c('source', 'VARCHAR', 'Seller.'),
        c('description', 'VARCHAR', 'Description.'), c('marketplace', 'VARCHAR', 'Marketplace.'), c('marketplace_url', 'VARCHAR', 'Marketplace URL.'), c('url', 'VARCHAR', 'Product URL.'),
        ...RATING('rating', 'Product'),
      ]),
    },
    ...knowledgeGraphTables(items),
    scalars(`${items}__related_searches`, items, 'items', c('keyword', 'VARCHAR', 'Related search (JSON text when the service sends an object).', '$'), 'Queries of a related-searches or people-also-search item, one row each.', ['related_searches', 'people_also_search']),
    scalars(`${items}__additional_categories`, items, 'additional_categories', c('category', 'VARCHAR', 'Category.', '$'), 'Further categories of a maps item.', typesWith('additional_categories')),
  ];
}

/** A people-also-ask item's questions, their expanded answers, and an AI Overview answer's parts and sources. */
function peopleAlsoAskTables(items: string): TableDef[] {
  const paaExpanded = ['SerpApiPeopleAlsoAskExpandedElementItem', 'SerpApiPeopleAlsoAskAiOverviewExpandedElementItem'];
  const paaCols = [
    c('item_type', 'VARCHAR', 'people_also_ask_expanded_element or people_also_ask_ai_overview_expanded_element (an AI Overview answer: its parts and sources are child rows).', 'type', 'item_type'),
    c('featured_title', 'VARCHAR', 'Title of the answer.'), c('url', 'VARCHAR', 'URL of the answer.'), c('domain', 'VARCHAR', 'Domain of the answer.'),
    c('title', 'VARCHAR', 'Title.'), c('description', 'VARCHAR', 'Answer text.'), ts('timestamp', 'Date shown.'),
    json('images', 'Images of the answer, as JSON.'), renamedJson('table', 'Table of the answer (`table`), as JSON.'),
  ];
  const aiOnly = ['people_also_ask_ai_overview_expanded_element'];
  return [
    {
      name: `${items}__people_also_ask`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['people_also_ask'],
      description: 'Questions of a people-also-ask item; answers are in `__expanded`.',
      columns: [c('item_type', 'VARCHAR', 'people_also_ask_element.', 'type', 'item_type'), c('title', 'VARCHAR', 'Question.'), c('seed_question', 'VARCHAR', 'Question the block was seeded by.'), c('xpath', 'VARCHAR', 'XPath.')],
    },
    {
      name: `${items}__people_also_ask__expanded`, parent: `${items}__people_also_ask`, extra: true, source: { kind: 'objects', path: 'expanded_element' },
      description: 'Expanded answers of a people-also-ask question: a page\'s answer, or an AI Overview answer whose parts and sources are child rows.',
      columns: [...paaCols, ...modelColumns(paaExpanded, paaCols, ['items', 'references'])],
    },
    // Short names: PostgreSQL cuts identifiers at 63 characters.
    ...aiElements(`${items}__people_also_ask__expanded__ai`, `${items}__people_also_ask__expanded`, 'an AI Overview answer in people also ask', aiOnly, ['BaseSerpApiAiOverviewElementItem'], `${items}__people_also_ask__expanded__ai__refs`),
    references(`${items}__people_also_ask__expanded__refs`, `${items}__people_also_ask__expanded`, 'an AI Overview answer in people also ask', aiOnly),
  ];
}

/** A knowledge graph's parts, the elements of its lists, and its AI Overview part's parts and sources. */
function knowledgeGraphTables(items: string): TableDef[] {
  const kgParts = Object.values(SERP_ITEM_CLASSES.BaseSerpApiKnowledgeGraphElementItem ?? {});
  const kgCols = [
    c('item_type', 'VARCHAR', 'knowledge_graph_*_item.', 'type', 'item_type'), c('rank_group', 'BIGINT', 'Position among parts of the same type.'),
    c('rank_absolute', 'BIGINT', 'Position among the parts.'), c('position', 'VARCHAR', 'left or right.'), c('xpath', 'VARCHAR', 'XPath.'),
    c('title', 'VARCHAR', 'Title.'), c('text', 'VARCHAR', 'Text.'), c('data_attrid', 'VARCHAR', 'Engine attribute id of the part.'),
    c('link_url', 'VARCHAR', 'Link of the part.', 'link.url'), c('link_title', 'VARCHAR', 'Link title.', 'link.title'), json('link', 'The part\'s link with all its fields, as JSON.'), json('links', 'Links of the part, as JSON.'),
  ];
  const kgListTypes = Object.entries(SERP_ITEM_CLASSES.BaseSerpApiKnowledgeGraphElementItem ?? {}).filter(([t, cls]) => t !== 'knowledge_graph_ai_overview_item' && SERP_CLASS_FIELDS[cls]?.items).map(([t]) => t);
  return [
    {
      name: `${items}__knowledge_graph`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['knowledge_graph'],
      description: 'Parts of a knowledge graph (description, rows, lists, carousels, images, expanded, shopping, hotels booking, AI Overview), typed from each part\'s class; lists of a part are in `__elements`.',
      columns: [...kgCols, ...modelColumns(kgParts, kgCols, ['items', 'references'])],
    },
    {
      name: `${items}__knowledge_graph__elements`, parent: `${items}__knowledge_graph`, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: kgListTypes,
      description: 'Elements of a knowledge graph list, carousel, images, shopping or hotels-booking part.',
      columns: withModel(elementClasses('items', kgListTypes, ['BaseSerpApiKnowledgeGraphElementItem']), [c('item_type', 'VARCHAR', 'knowledge_graph_*_element.', 'type', 'item_type'), c('title', 'VARCHAR', 'Title.'), c('url', 'VARCHAR', 'URL.'), c('domain', 'VARCHAR', 'Domain.')]),
    },
    ...aiElements(`${items}__knowledge_graph__ai`, `${items}__knowledge_graph`, 'the AI Overview part of a knowledge graph', ['knowledge_graph_ai_overview_item'], ['BaseSerpApiAiOverviewElementItem'], `${items}__knowledge_graph__ai__refs`),
    references(`${items}__knowledge_graph__refs`, `${items}__knowledge_graph`, 'the AI Overview part of a knowledge graph', ['knowledge_graph_ai_overview_item']),
  ];
}

/** Hand-described columns followed by those the models add. */
const withModel = (classes: readonly string[], cols: ColumnDef[]): ColumnDef[] => [...cols, ...modelColumns(classes, cols)];

export const SERP_TABLES: readonly TableDef[] = [
  ...itemFamily('serp_results', 'serp_advanced', 'Advanced'),
  ...itemFamily('serp_regular', 'serp_regular', 'Regular'),
  {
    name: 'serp_locations', parent: null, resultKind: 'serp_locations', extra: true,
    description: 'Locations of a SERP engine (`serp.<engine>.locations`); the engine is the task\'s (`tasks.endpoint_id`).',
    columns: [
      c('location_code', 'BIGINT', 'Location code.'), c('location_name', 'VARCHAR', 'Full location name, narrowest first.'),
      c('location_code_parent', 'BIGINT', 'Code of the superordinate location; null for a country.'), c('country_iso_code', 'VARCHAR', 'ISO country code.'),
      c('location_type', 'VARCHAR', 'Location type (Country, State, ...).'),
    ],
  },
  {
    name: 'serp_languages', parent: null, resultKind: 'serp_languages', extra: true,
    description: 'Languages of a SERP engine (`serp.<engine>.languages`).',
    columns: [c('language_name', 'VARCHAR', 'Language name.'), c('language_code', 'VARCHAR', 'Language code.')],
  },
  {
    name: 'serp_html', parent: null, resultKind: 'serp_html', extra: true,
    description: 'HTML SERP results (task_get/html, live/html) of every engine and type, one row per result; the pages are in `serp_html__items`.',
    columns: [...HEAD, c('items_count', 'BIGINT', 'Number of pages.')],
  },
  {
    name: 'serp_html__items', parent: 'serp_html', extra: true, source: { kind: 'objects', path: 'items' },
    description: 'Result pages of an HTML SERP result, kept as text.',
    columns: [c('page', 'BIGINT', 'Page number.'), ts('date', 'When the page was fetched (UTC).'), c('html', 'VARCHAR', 'The page HTML.')],
  },
];
