-- One row per company: the fields of a /api/companies listing row (CompanyListItem) plus filter columns.
-- valuation_usd/_date/_basis are the current valuation only (company_valuation in views.sql says which are
-- current); the last known figure, current or not, is in the profile.
SELECT
    c.id,
    c.slug,
    c.name,
    c.sector,
    c.country,
    c.status,
    c.ticker,
    c.exchange,
    v.current_valuation_usd AS valuation_usd,
    CASE WHEN v.valuation_is_current THEN c.valuation_date END AS valuation_date,
    CASE WHEN v.valuation_is_current THEN c.valuation_basis END AS valuation_basis,
    r.total_raised_usd,
    r.last_round_stage,
    r.last_round_date,
    '/api/companies/' || c.slug || '.json' AS url,
    v.valuation_is_current,
    coalesce(ak.also_known_as, []) AS also_known_as
FROM companies AS c
JOIN company_valuation AS v ON v.company_id = c.id
LEFT JOIN company_funding AS r ON r.company_id = c.id
LEFT JOIN company_also_known_as AS ak ON ak.company_id = c.id
