/** Views over the shopping results: prices and sellers. */
import { col, type ViewDef } from '../../catalog/view.js';
import { snapshotDate, SNAPSHOT_DATE } from '../../catalog/snapshot-date.js';


/** A product rating on one scale, out of 5: the service rates on 5, 10 or 100 (rating_max, or the rating type's own maximum). */
function ratingOutOf5(alias: string): string {
  const max = `coalesce(${alias}.product_rating_max, CASE ${alias}.product_rating_type WHEN 'Max5' THEN 5 WHEN 'Percents' THEN 100 END)`;
  return `5.0 * ${alias}.product_rating_value / nullif(${max}, 0)`;
}

/** Offers of shopping results: priced items and priced carousel elements, under their result's keyword. */
function merchantOffers(): string {
  return `
  SELECT ${snapshotDate('s')} AS snapshot_date, s.keyword, s.location_code, s.language_code,
         i.seller, i.currency, i.price, i.rank_absolute, ${ratingOutOf5('i')} AS product_rating, false AS sponsored
  FROM merchant_shopping__items i JOIN merchant_shopping s ON s._id = i._parent_id LEFT JOIN _runs r ON r.run_id = s._run_id
  WHERE i.price IS NOT NULL
  UNION ALL
  SELECT ${snapshotDate('s')}, s.keyword, s.location_code, s.language_code,
         e.seller, e.currency, e.price, i.rank_absolute, ${ratingOutOf5('e')}, true
  FROM merchant_shopping__items__elements e JOIN merchant_shopping__items i ON i._id = e._parent_id
  JOIN merchant_shopping s ON s._id = i._parent_id LEFT JOIN _runs r ON r.run_id = s._run_id
  WHERE e.price IS NOT NULL`;
}

export const VIEWS: readonly ViewDef[] = [
  {
    name: 'v_merchant_prices',
    question: 'What do products for a keyword cost, and how many sellers offer them?',
    grain: 'one row per snapshot day, keyword, location, language and currency.',
    notes: 'Offers are the priced items of `merchant_shopping__items` (shopping results) and the priced elements of sponsored carousels (`merchant_shopping__items__elements`), under their result\'s keyword. Prices in different currencies are never mixed.',
    columns: [
      SNAPSHOT_DATE,
      col('keyword', 'Keyword of the shopping result.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('currency', 'ISO currency code of the prices.'),
      col('offers', 'Priced offers.'),
      col('sponsored_offers', 'Of which in sponsored carousels.'),
      col('sellers', 'Distinct sellers (offers without a seller name are not counted).'),
      col('min_price', 'Lowest price.'),
      col('median_price', 'Median price (two decimals).'),
      col('avg_price', 'Average price (two decimals).'),
      col('max_price', 'Highest price.'),
      col('cheapest_seller', 'Seller of the lowest price.'),
    ],
    select: `
WITH offers AS (${merchantOffers()})
SELECT snapshot_date, keyword, location_code, language_code, currency,
       count(*) AS offers, count(*) FILTER (WHERE sponsored) AS sponsored_offers, count(DISTINCT seller) AS sellers,
       min(price) AS min_price, round(median(price), 2) AS median_price, round(avg(price), 2) AS avg_price, max(price) AS max_price,
       arg_min(seller, price) AS cheapest_seller
FROM offers
GROUP BY snapshot_date, keyword, location_code, language_code, currency`,
  },
  {
    name: 'v_merchant_sellers',
    question: 'Which sellers offer products for a keyword, at what prices and how high do they rank?',
    grain: 'one row per snapshot day, keyword, location, language, seller and currency.',
    notes: 'The same offers as `v_merchant_prices`, by seller; offers without a seller name are left out.',
    columns: [
      SNAPSHOT_DATE,
      col('keyword', 'Keyword of the shopping result.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('seller', 'Seller name.'),
      col('currency', 'ISO currency code of the prices.'),
      col('offers', 'Priced offers of the seller.'),
      col('sponsored_offers', 'Of which in sponsored carousels.'),
      col('min_price', 'Seller\'s lowest price.'),
      col('avg_price', 'Seller\'s average price (two decimals).'),
      col('max_price', 'Seller\'s highest price.'),
      col('price_rank', 'Rank of the seller\'s lowest price among the keyword\'s sellers (1 = cheapest).'),
      col('best_rank_absolute', 'Best (lowest) position of the seller\'s offers among all result items.'),
      col('avg_product_rating', 'Average product rating of the seller\'s offers, out of 5 (each rating scaled by its own maximum; two decimals).'),
    ],
    select: `
WITH offers AS (${merchantOffers()}), by_seller AS (
  SELECT snapshot_date, keyword, location_code, language_code, seller, currency,
         count(*) AS offers, count(*) FILTER (WHERE sponsored) AS sponsored_offers,
         min(price) AS min_price, round(avg(price), 2) AS avg_price, max(price) AS max_price,
         min(rank_absolute) AS best_rank_absolute, round(avg(product_rating), 2) AS avg_product_rating
  FROM offers
  WHERE seller IS NOT NULL
  GROUP BY snapshot_date, keyword, location_code, language_code, seller, currency
)
SELECT snapshot_date, keyword, location_code, language_code, seller, currency, offers, sponsored_offers,
       min_price, avg_price, max_price,
       dense_rank() OVER (PARTITION BY snapshot_date, keyword, location_code, language_code, currency ORDER BY min_price) AS price_rank,
       best_rank_absolute, avg_product_rating
FROM by_seller`,
  },
];
