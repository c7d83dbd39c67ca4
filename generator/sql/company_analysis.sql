-- Per company: the derived metrics of the profile's `analysis` group. $as_of is the dataset's as-of date.
-- Ranks, percentiles and valuation/revenue use current valuations only (company_valuation in views.sql).
WITH valued AS (
    SELECT c.id, c.sector, v.current_valuation_usd AS valuation_usd
    FROM companies AS c JOIN company_valuation AS v ON v.company_id = c.id
), sector_stats AS (
    SELECT
        id,
        count(*) OVER (PARTITION BY sector) AS sector_companies,
        CASE WHEN valuation_usd IS NOT NULL THEN
            rank() OVER (PARTITION BY sector ORDER BY valuation_usd DESC NULLS LAST) END AS sector_rank,
        CASE WHEN valuation_usd IS NOT NULL THEN
            count(valuation_usd) OVER (PARTITION BY sector ORDER BY valuation_usd ASC NULLS LAST
                                       RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            / count(valuation_usd) OVER (PARTITION BY sector) END AS sector_percentile
    FROM valued
)
SELECT
    c.id AS company_id,
    round(CASE WHEN f.revenue_usd > 0 THEN v.valuation_usd / f.revenue_usd END, 2) AS valuation_to_revenue,
    round(f.revenue_growth, 4) AS revenue_growth,
    s.sector_rank::INTEGER AS sector_rank,
    s.sector_companies::INTEGER AS sector_companies,
    round(s.sector_percentile, 4) AS sector_percentile,
    CASE WHEN r.last_round_date IS NOT NULL THEN date_diff('month', r.last_round_date, $as_of::DATE) END
        AS months_since_last_round,
    sp.latest_valuation_usd AS latest_secondary_valuation_usd,
    strftime(sp.latest_month, '%Y-%m') AS latest_secondary_month,
    round(CASE WHEN r.last_round_post_money_usd > 0 AND sp.latest_valuation_usd IS NOT NULL
               THEN sp.latest_valuation_usd / r.last_round_post_money_usd - 1 END, 4) AS secondary_premium_to_last_round
FROM companies AS c
JOIN sector_stats AS s ON s.id = c.id
JOIN valued AS v ON v.id = c.id
LEFT JOIN company_revenue AS f ON f.company_id = c.id
LEFT JOIN company_funding AS r ON r.company_id = c.id
LEFT JOIN company_secondary AS sp ON sp.company_id = c.id
ORDER BY c.id
