/**
 * SERP result tables (organic, news, images, maps, local pack of every engine). Every item of an advanced or
 * regular result lands in one items table whose common columns (type, rank_group, rank_absolute, page, position,
 * xpath, domain, url, title, description) rank every item in one query; the columns of one item type are null for
 * the others, and nested lists are child tables that apply to their item types only. An item type the catalog
 * does not know keeps its common columns and the rest of the item in `extra`, and is counted in the run summary.
 */
import type { ColumnDef, TableDef } from '../../normalize/catalog.js';
import { c, ts, scalarChild as scalars } from '../../normalize/declare.js';

const json = (name: string, description: string, path: string = name): ColumnDef => c(name, 'JSON', description, path, 'json');

/** Item types the SERP tables know, as the live service names them (no engine prefix). */
export const SERP_ITEM_TYPES = [
  'organic', 'paid', 'featured_snippet', 'people_also_ask', 'local_pack', 'knowledge_graph', 'top_stories', 'images',
  'video', 'related_searches', 'shopping', 'news_search', 'images_search', 'maps_search', 'maps_paid_item',
] as const;

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
  json('refinement_chips', 'Refinement chips above the results, as JSON.'),
];

const RATING = (prefix: string, what: string): ColumnDef[] => [
  c(`${prefix}_type`, 'VARCHAR', `${what} rating type: Max5, Percents or CustomMax.`, `${prefix}.rating_type`),
  c(`${prefix}_value`, 'DOUBLE', `${what} rating value.`, `${prefix}.value`),
  c(`${prefix}_votes_count`, 'BIGINT', `Votes of the ${what.toLowerCase()} rating.`, `${prefix}.votes_count`),
  c(`${prefix}_max`, 'DOUBLE', `Maximum of the ${what.toLowerCase()} rating type.`, `${prefix}.rating_max`),
];

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
  json('table', 'Table of a featured snippet, as JSON.'),
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
];

const ITEM_IGNORED = [
  { path: 'price.regular', why: 'rarely shown; `extra_info` keeps paid details' },
  { path: 'price.max_value', why: 'rarely shown' },
  { path: 'price.is_price_range', why: 'rarely shown' },
  { path: 'rectangle', why: 'pixel coordinates, only with calculate_rectangles' },
  { path: 'address_info', why: 'city, zip and country code are columns' },
];

const LINK_COLUMNS: ColumnDef[] = [
  c('item_type', 'VARCHAR', 'Element type.', 'type', 'item_type'),
  c('title', 'VARCHAR', 'Title.'), c('description', 'VARCHAR', 'Description.'), c('url', 'VARCHAR', 'URL.'), c('domain', 'VARCHAR', 'Domain.'),
];

/**
 * The advanced and regular results share the shape; each gets its own tables. Regular items carry no nested lists
 * (the regular variant leaves out the SERP features), so only the advanced items get the child tables.
 */
function itemFamily(root: string, resultKind: 'serp_advanced' | 'serp_regular', what: string, nested: boolean): TableDef[] {
  const items = `${root}__items`;
  const head: TableDef[] = [
    {
      name: root, parent: null, resultKind, extra: true,
      description: `${what} SERP results (organic, news, images, maps, local pack of every engine), one row per result; items are in \`${items}\`.`,
      columns: RESULT_COLUMNS, ignored: [{ path: 'item_types', why: `derivable from \`${items}.item_type\`` }],
    },
    {
      name: items, parent: root, extra: true, source: { kind: 'objects', path: 'items' }, knownItemTypes: SERP_ITEM_TYPES,
      description: `Every item of a ${what.toLowerCase()} result in one table, ranked by \`rank_absolute\` (and \`rank_group\` within its \`item_type\`); columns of other item types are null. Unknown item types are kept: common columns plus \`extra\`.`,
      columns: ITEM_COLUMNS, ignored: ITEM_IGNORED,
    },
  ];
  if (!nested) return head;
  return [
    ...head,
    {
      name: `${items}__links`, parent: items, extra: true, source: { kind: 'objects', path: 'links' }, onlyForItemTypes: ['organic', 'paid'],
      description: 'Sitelinks of an organic or paid item.', columns: LINK_COLUMNS,
    },
    scalars(`${items}__highlighted`, items, 'highlighted', c('text', 'VARCHAR', 'Highlighted words.', '$'), 'Words highlighted in an organic or paid snippet.', ['organic', 'paid', 'featured_snippet']),
    {
      name: `${items}__people_also_ask`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['people_also_ask'],
      description: 'Questions of a people-also-ask item; answers are in `__expanded`.',
      columns: [c('item_type', 'VARCHAR', 'people_also_ask_element.', 'type', 'item_type'), c('title', 'VARCHAR', 'Question.'), c('seed_question', 'VARCHAR', 'Question the block was seeded by.'), c('xpath', 'VARCHAR', 'XPath.')],
    },
    {
      name: `${items}__people_also_ask__expanded`, parent: `${items}__people_also_ask`, extra: true, source: { kind: 'objects', path: 'expanded_element' },
      description: 'Expanded answers of a people-also-ask question.',
      columns: [
        c('item_type', 'VARCHAR', 'people_also_ask_expanded_element or people_also_ask_ai_overview_expanded_element.', 'type', 'item_type'),
        c('featured_title', 'VARCHAR', 'Title of the answer.'), c('url', 'VARCHAR', 'URL of the answer.'), c('domain', 'VARCHAR', 'Domain of the answer.'),
        c('title', 'VARCHAR', 'Title.'), c('description', 'VARCHAR', 'Answer text.'), ts('timestamp', 'Date shown.'),
        json('images', 'Images of the answer, as JSON.'), json('table', 'Table of the answer, as JSON.'),
      ],
    },
    {
      name: `${items}__top_stories`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['top_stories'],
      description: 'Stories of a top-stories item.',
      columns: [c('item_type', 'VARCHAR', 'top_stories_element.', 'type', 'item_type'), c('source', 'VARCHAR', 'Publisher.'), c('domain', 'VARCHAR', 'Domain.'), c('title', 'VARCHAR', 'Headline.'), c('date', 'VARCHAR', 'Date as displayed.'), c('amp_version', 'BOOLEAN', 'Has an AMP version.'), ts('timestamp', 'Publication time.'), c('url', 'VARCHAR', 'URL.'), c('image_url', 'VARCHAR', 'Image.'), c('badges', 'JSON', 'Badges shown on the story, as JSON.', 'badges', 'json')],
    },
    {
      name: `${items}__images`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['images'],
      description: 'Images of an images item.',
      columns: [c('item_type', 'VARCHAR', 'images_element.', 'type', 'item_type'), c('alt', 'VARCHAR', 'Alt text.'), c('url', 'VARCHAR', 'Page URL.'), c('image_url', 'VARCHAR', 'Image URL.')],
    },
    {
      name: `${items}__video`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['video'],
      description: 'Videos of a video item.',
      columns: [c('item_type', 'VARCHAR', 'video_element.', 'type', 'item_type'), c('source', 'VARCHAR', 'Platform.'), c('title', 'VARCHAR', 'Title.'), ts('timestamp', 'Upload time.'), c('url', 'VARCHAR', 'URL.'), c('preview', 'VARCHAR', 'Preview image.')],
    },
    {
      name: `${items}__shopping`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['shopping'],
      description: 'Products of a shopping item.',
      columns: [
        c('item_type', 'VARCHAR', 'shopping_element.', 'type', 'item_type'), c('title', 'VARCHAR', 'Product.'), c('price_current', 'DOUBLE', 'Price.', 'price.current'),
        c('price_currency', 'VARCHAR', 'Currency.', 'price.currency'), c('price_displayed', 'VARCHAR', 'Price as displayed.', 'price.displayed_price'), c('source', 'VARCHAR', 'Seller.'),
        c('description', 'VARCHAR', 'Description.'), c('marketplace', 'VARCHAR', 'Marketplace.'), c('marketplace_url', 'VARCHAR', 'Marketplace URL.'), c('url', 'VARCHAR', 'Product URL.'),
        ...RATING('rating', 'Product'),
      ],
      ignored: [{ path: 'price.regular', why: 'rarely shown' }, { path: 'price.max_value', why: 'rarely shown' }, { path: 'price.is_price_range', why: 'rarely shown' }],
    },
    {
      name: `${items}__knowledge_graph`, parent: items, extra: true, source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['knowledge_graph'],
      description: 'Parts of a knowledge graph (description, rows, lists, images, ...); the part\'s own lists stay in `extra`.',
      columns: [
        c('item_type', 'VARCHAR', 'knowledge_graph_*_item.', 'type', 'item_type'), c('rank_group', 'BIGINT', 'Position among parts of the same type.'),
        c('rank_absolute', 'BIGINT', 'Position among the parts.'), c('position', 'VARCHAR', 'left or right.'), c('xpath', 'VARCHAR', 'XPath.'),
        c('title', 'VARCHAR', 'Title.'), c('text', 'VARCHAR', 'Text.'), c('data_attrid', 'VARCHAR', 'Engine attribute id of the part.'),
        c('link_url', 'VARCHAR', 'Link of the part.', 'link.url'), c('link_title', 'VARCHAR', 'Link title.', 'link.title'), json('links', 'Links of the part, as JSON.'),
      ],
    },
    scalars(`${items}__related_searches`, items, 'items', c('keyword', 'VARCHAR', 'Related search (JSON text when the service sends an object).', '$'), 'Queries of a related-searches item, one row each.', ['related_searches']),
    scalars(`${items}__additional_categories`, items, 'additional_categories', c('category', 'VARCHAR', 'Category.', '$'), 'Further categories of a maps item.', ['maps_search', 'maps_paid_item']),
  ];
}

export const SERP_TABLES: readonly TableDef[] = [
  ...itemFamily('serp_results', 'serp_advanced', 'Advanced', true),
  ...itemFamily('serp_regular', 'serp_regular', 'Regular', false),
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
