-- Price spread and number of sellers per shopping keyword, latest snapshot of each keyword.
-- View: v_merchant_prices (one row per snapshot day, keyword, location, language and currency).
SELECT keyword, location_code, currency, offers, sellers, min_price, median_price, max_price,
       round(max_price / nullif(min_price, 0), 1) AS max_to_min, cheapest_seller
FROM (
  SELECT *, max(snapshot_date) OVER (PARTITION BY keyword, location_code, language_code) AS latest_snapshot
  FROM v_merchant_prices
) p
WHERE snapshot_date = latest_snapshot
ORDER BY keyword, location_code, currency;
