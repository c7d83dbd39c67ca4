-- Private companies on the as-of date: the company listing row (company_rows in views.sql) plus last round,
-- secondary marks, IPO plans.
SELECT
    c.*,
    r.last_round_post_money_usd,
    sp.latest_valuation_usd AS latest_secondary_valuation_usd,
    strftime(sp.latest_month, '%Y-%m') AS latest_secondary_month,
    round(CASE WHEN r.last_round_post_money_usd > 0
               THEN sp.latest_valuation_usd / r.last_round_post_money_usd - 1 END, 4)
        AS secondary_premium_to_last_round,
    li.ipo_status,
    sp.latest_observed_date AS latest_secondary_observed_date
FROM company_rows AS c
LEFT JOIN company_funding AS r ON r.company_id = c.id
LEFT JOIN company_secondary AS sp ON sp.company_id = c.id
LEFT JOIN company_ipo_status AS li ON li.company_id = c.id
WHERE c.status = 'private'
