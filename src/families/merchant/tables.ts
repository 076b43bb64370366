/** Merchant shopping results (E9) and their HTML pages. */
import type { ColumnDef, TableDef } from '../../catalog/table.js';
import { c, ts, scalarChild, ITEM_TYPE, SERP_RESULT_HEAD, htmlTables } from '../../catalog/declare.js';

function rating(prefix: 'product_rating' | 'shop_rating', what: string): ColumnDef[] {
  return [
    c(`${prefix}_type`, 'VARCHAR', `${what} rating type: Max5, Percents or CustomMax.`, `${prefix}.rating_type`),
    c(`${prefix}_value`, 'DOUBLE', `${what} rating value.`, `${prefix}.value`),
    c(`${prefix}_votes_count`, 'BIGINT', `Number of votes of the ${what.toLowerCase()} rating.`, `${prefix}.votes_count`),
    c(`${prefix}_max`, 'DOUBLE', `Maximum of the ${what.toLowerCase()} rating type.`, `${prefix}.rating_max`),
    c(`${prefix}_position`, 'VARCHAR', `Where the ${what.toLowerCase()} rating is shown: left or right.`, `${prefix}.position`),
  ];
}
const ratingIgnored = (prefix: string) => ({ path: `${prefix}.type`, why: 'always `rating_element`' });

const DELIVERY: ColumnDef[] = [
  c('delivery_message', 'VARCHAR', 'Delivery message.', 'delivery_info.delivery_message'),
  c('delivery_price_current', 'DOUBLE', 'Delivery price; null when delivery is free.', 'delivery_info.delivery_price.current'),
  c('delivery_price_regular', 'DOUBLE', 'Undiscounted delivery price.', 'delivery_info.delivery_price.regular'),
  c('delivery_price_max_value', 'DOUBLE', 'Maximum undiscounted delivery price.', 'delivery_info.delivery_price.max_value'),
  c('delivery_price_currency', 'VARCHAR', 'Currency of the delivery price.', 'delivery_info.delivery_price.currency'),
  c('delivery_price_is_price_range', 'BOOLEAN', 'Whether the delivery price is a range.', 'delivery_info.delivery_price.is_price_range'),
  c('delivery_price_displayed', 'VARCHAR', 'Delivery price as displayed.', 'delivery_info.delivery_price.displayed_price'),
  ts('delivery_date_from', 'Earliest delivery date (UTC).', 'delivery_info.delivery_date_from'),
  ts('delivery_date_to', 'Latest delivery date (UTC).', 'delivery_info.delivery_date_to'),
  ts('fastest_delivery_date_from', 'Earliest date of the fast delivery option (UTC).', 'delivery_info.fastest_delivery_date_from'),
  ts('fastest_delivery_date_to', 'Latest date of the fast delivery option (UTC).', 'delivery_info.fastest_delivery_date_to'),
];

/** The live service sends stores_count_info on the item; the reference puts it inside delivery_info: both are read. */
const STORES: ColumnDef[] = [
  c('stores_count', 'BIGINT', 'Number of stores offering the product.', 'stores_count_info.count', undefined, 'delivery_info.stores_count_info.count'),
  c('stores_count_displayed_text', 'VARCHAR', 'Stores count as displayed.', 'stores_count_info.displayed_text', undefined, 'delivery_info.stores_count_info.displayed_text'),
  c('stores_count_from_text', 'BOOLEAN', 'True when the count was taken from the displayed text, false when found in the page code.', 'stores_count_info.count_from_text', undefined, 'delivery_info.stores_count_info.count_from_text'),
];

const SPECIAL_OFFER: ColumnDef[] = [
  c('special_offer_title', 'VARCHAR', 'Special offer title.', 'special_offer_info.title'),
  c('special_offer_sub_title', 'VARCHAR', 'Special offer subtitle.', 'special_offer_info.sub_title'),
  c('special_offer_fixed_discount', 'DOUBLE', 'Fixed discount.', 'special_offer_info.fixed_discount'),
  c('special_offer_fixed_discount_currency', 'VARCHAR', 'Currency of the fixed discount.', 'special_offer_info.fixed_discount_currency'),
  c('special_offer_percentage_discount', 'DOUBLE', 'Percentage discount.', 'special_offer_info.percentage_discount'),
  c('special_offer_coupon_code', 'VARCHAR', 'Coupon code.', 'special_offer_info.coupon_code'),
  c('special_offer_coupon_info', 'VARCHAR', 'Coupon information.', 'special_offer_info.coupon_info'),
  c('special_offer_url', 'VARCHAR', 'Page where the offer is posted (deprecated on the live service: null).', 'special_offer_info.url'),
  c('special_offer_domain', 'VARCHAR', 'Domain of the offer page.', 'special_offer_info.domain'),
];

const MERCHANT_ITEM_TYPES = ['shopping_sponsored_carousel', 'shopping_carousel', 'shopping_paid', 'shopping_serp', 'related_searches'] as const;

export const MERCHANT_TABLES: readonly TableDef[] = [
  {
    name: 'merchant_shopping', parent: null, resultKind: 'merchant_shopping', extra: true,
    description: 'Merchant shopping results, one row per result (keyword and location).',
    columns: [...SERP_RESULT_HEAD, c('items_count', 'BIGINT', 'Number of elements in `items`.')],
  },
  scalarChild('merchant_shopping__item_types', 'merchant_shopping', 'item_types', c('item_type', 'VARCHAR', 'An item type found in the result, as the service wrote it.', '$'), 'Types of the items found in a shopping result, one row each.'),
  {
    name: 'merchant_shopping__items', parent: 'merchant_shopping', extra: true, source: { kind: 'objects', path: 'items' },
    knownItemTypes: MERCHANT_ITEM_TYPES,
    description: 'Items of a shopping result, every item type in one table (`item_type`); columns that do not apply to a type are null. Unknown item types are kept with their common columns and `extra`.',
    columns: [
      ...ITEM_TYPE,
      c('rank_group', 'BIGINT', 'Position among items of the same type.'),
      c('rank_absolute', 'BIGINT', 'Position among all items.'),
      c('position', 'VARCHAR', 'left or right.'),
      c('xpath', 'VARCHAR', 'XPath of the element.'),
      c('title', 'VARCHAR', 'Title (carousel title or product title).'),
      c('domain', 'VARCHAR', 'Domain (paid, serp).'),
      c('description', 'VARCHAR', 'Product description (paid, serp).'),
      c('url', 'VARCHAR', 'Product page on the seller\'s site (paid, serp).'),
      c('shopping_url', 'VARCHAR', 'Product page on the shopping service (serp).'),
      c('price', 'DOUBLE', 'Product price (serp).'),
      c('price_multiplier', 'BIGINT', 'Months covered by a monthly instalment (serp).'),
      c('old_price', 'DOUBLE', 'Previous price (serp).'),
      c('currency', 'VARCHAR', 'ISO currency code (serp).'),
      c('product_id', 'VARCHAR', 'Product identifier assigned by the engine, as text (serp).'),
      c('data_docid', 'VARCHAR', 'Identifier of the result data element, as text (serp).'),
      c('seller', 'VARCHAR', 'Seller name (serp).'),
      c('reviews_count', 'BIGINT', 'Number of user reviews (serp).'),
      c('is_best_match', 'BOOLEAN', 'Marked with the best-match label (serp).'),
      ...rating('product_rating', 'Product'),
      ...rating('shop_rating', 'Shop'),
      c('shop_ad_aclk', 'VARCHAR', 'Ad click referral parameter (paid, serp).'),
      c('gid', 'VARCHAR', 'Global product identifier on the shopping service, as text (serp).'),
      ...DELIVERY,
      ...STORES,
    ],
    ignored: [ratingIgnored('product_rating'), ratingIgnored('shop_rating')],
  },
  {
    name: 'merchant_shopping__items__elements', parent: 'merchant_shopping__items', extra: true,
    source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['shopping_sponsored_carousel', 'shopping_carousel'],
    knownItemTypes: ['shopping_sponsored_carousel_element', 'shopping_carousel_element'],
    description: 'Elements of a carousel item: the sponsored carousel (`shopping_sponsored_carousel_element`) and the product carousel the live service adds (`shopping_carousel_element`).',
    columns: [
      ...ITEM_TYPE,
      c('xpath', 'VARCHAR', 'XPath of the element.'),
      c('title', 'VARCHAR', 'Product title.'),
      c('seller', 'VARCHAR', 'Seller.'),
      c('price', 'DOUBLE', 'Price.'),
      c('currency', 'VARCHAR', 'ISO currency code.'),
      ...rating('product_rating', 'Product'),
      c('shop_ad_aclk', 'VARCHAR', 'Ad click referral parameter (sponsored).'),
      c('shopping_url', 'VARCHAR', 'Product page on the shopping service (product carousel).'),
      c('product_id', 'VARCHAR', 'Product identifier assigned by the engine, as text (product carousel).'),
      c('data_docid', 'VARCHAR', 'Identifier of the result data element, as text (product carousel).'),
      c('gid', 'VARCHAR', 'Global product identifier on the shopping service, as text (product carousel).'),
      ...DELIVERY,
      ...SPECIAL_OFFER,
    ],
    ignored: [ratingIgnored('product_rating')],
  },
  scalarChild('merchant_shopping__items__elements__tags', 'merchant_shopping__items__elements', 'tags', c('tag', 'VARCHAR', 'Tag.', '$'), 'Tags of a carousel element, one row each.'),
  scalarChild('merchant_shopping__items__elements__product_images', 'merchant_shopping__items__elements', 'product_images', c('url', 'VARCHAR', 'Image URL; `_list_idx` 0 is the featured image.', '$'), 'Product images of a carousel element, one row each.'),
  scalarChild('merchant_shopping__items__tags', 'merchant_shopping__items', 'tags', c('tag', 'VARCHAR', 'Tag.', '$'), 'Tags of a shopping item, one row each.', ['shopping_serp', 'shopping_paid', 'shopping_sponsored_carousel']),
  scalarChild('merchant_shopping__items__product_images', 'merchant_shopping__items', 'product_images', c('url', 'VARCHAR', 'Image URL; `_list_idx` 0 is the featured image.', '$'), 'Product images of a shopping item, one row each.', ['shopping_serp', 'shopping_paid', 'shopping_sponsored_carousel']),
  scalarChild('merchant_shopping__items__related_searches', 'merchant_shopping__items', 'items', c('keyword', 'VARCHAR', 'Related keyword (JSON text when the service sends an object).', '$'), 'Related keywords of a `related_searches` item, one row each.', ['related_searches']),
  ...htmlTables('merchant', 'merchant_html', 'Merchant'),
  {
    name: 'merchant_shopping__items__additional_specifications', parent: 'merchant_shopping__items', extra: false,
    source: { kind: 'entries', path: 'additional_specifications' },
    description: 'Additional URL parameters of a shopping item (product-specification and sellers requests), one row per parameter.',
    columns: [c('name', 'VARCHAR', 'Parameter name.', '$key'), c('value', 'VARCHAR', 'Parameter value (JSON text when not a string).', '$')],
  },

];
