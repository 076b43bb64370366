-- The three cheapest sellers of each keyword in the latest snapshot, with their best position in the results.
-- View: v_merchant_sellers (one row per snapshot day, keyword, location, language, seller and currency).
SELECT keyword, location_code, currency, price_rank, seller, min_price, offers, best_rank_absolute, avg_product_rating
FROM v_merchant_sellers
WHERE price_rank <= 3
QUALIFY snapshot_date = max(snapshot_date) OVER (PARTITION BY keyword, location_code, language_code)
ORDER BY keyword, location_code, currency, price_rank, seller;
