-- Private companies on the as-of date: the company listing row plus last round, secondary marks, IPO plans.
WITH rounds AS (
    SELECT company_id, sum(amount_usd) AS total_raised_usd,
           arg_max(stage, (announced_date, id)) AS last_round_stage, max(announced_date) AS last_round_date,
           arg_max(post_money_valuation_usd, (announced_date, id))
               FILTER (WHERE post_money_valuation_usd IS NOT NULL) AS last_round_post_money_usd
    FROM funding_rounds GROUP BY company_id
), secondary AS (
    SELECT company_id, max(month) AS latest_secondary_month,
           arg_max(implied_valuation_usd, month) AS latest_secondary_valuation_usd
    FROM secondary_prices GROUP BY company_id
), latest_ipo AS (
    SELECT company_id, arg_max(status, (coalesce(postponed_date, withdrawn_date, listing_date, expected_date,
                                                 filed_date, announced_date), id)) AS ipo_status
    FROM ipos GROUP BY company_id
)
SELECT
    c.id, c.slug, c.name, c.sector, s.name AS sector_name, c.country, n.name AS country_name, c.status,
    c.ticker, c.exchange, c.valuation_usd, c.valuation_date, c.valuation_basis,
    r.total_raised_usd::BIGINT AS total_raised_usd, r.last_round_stage, r.last_round_date,
    '/api/companies/' || c.slug AS url,
    r.last_round_post_money_usd,
    sp.latest_secondary_valuation_usd,
    sp.latest_secondary_month,
    round(CASE WHEN r.last_round_post_money_usd > 0
               THEN sp.latest_secondary_valuation_usd / r.last_round_post_money_usd - 1 END, 4)
        AS secondary_premium_to_last_round,
    li.ipo_status
FROM companies AS c
JOIN sectors AS s ON s.slug = c.sector
JOIN countries AS n ON n.code = c.country
LEFT JOIN rounds AS r ON r.company_id = c.id
LEFT JOIN secondary AS sp ON sp.company_id = c.id
LEFT JOIN latest_ipo AS li ON li.company_id = c.id
WHERE c.status = 'private'
