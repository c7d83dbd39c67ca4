-- Private companies on the as-of date: the company listing row plus last round, secondary marks, IPO plans.
SELECT
    c.id, c.slug, c.name, c.sector, c.country, c.status,
    c.ticker, c.exchange, v.current_valuation_usd AS valuation_usd,
    CASE WHEN v.valuation_is_current THEN c.valuation_date END AS valuation_date,
    CASE WHEN v.valuation_is_current THEN c.valuation_basis END AS valuation_basis,
    r.total_raised_usd, r.last_round_stage, r.last_round_date,
    '/api/companies/' || c.slug || '.json' AS url,
    v.valuation_is_current,
    r.last_round_post_money_usd,
    sp.latest_valuation_usd AS latest_secondary_valuation_usd,
    strftime(sp.latest_month, '%Y-%m') AS latest_secondary_month,
    round(CASE WHEN r.last_round_post_money_usd > 0
               THEN sp.latest_valuation_usd / r.last_round_post_money_usd - 1 END, 4)
        AS secondary_premium_to_last_round,
    li.ipo_status,
    sp.latest_observed_date AS latest_secondary_observed_date,
    coalesce(ak.also_known_as, []) AS also_known_as
FROM companies AS c
JOIN company_valuation AS v ON v.company_id = c.id
LEFT JOIN company_funding AS r ON r.company_id = c.id
LEFT JOIN company_secondary AS sp ON sp.company_id = c.id
LEFT JOIN company_ipo_status AS li ON li.company_id = c.id
LEFT JOIN company_also_known_as AS ak ON ak.company_id = c.id
WHERE c.status = 'private'
