-- The three cheapest sellers of each keyword in the latest snapshot, with their best position in the results.
-- View: v_merchant_sellers (one row per snapshot day, keyword, location, language, seller and currency).
SELECT keyword, location_code, currency, price_rank, seller, min_price, offers, best_rank_absolute, avg_product_rating
FROM (
  SELECT *, max(snapshot_date) OVER (PARTITION BY keyword, location_code, language_code) AS latest_snapshot
  FROM v_merchant_sellers
  WHERE price_rank <= 3
) s
WHERE snapshot_date = latest_snapshot
ORDER BY keyword, location_code, currency, price_rank, seller;
