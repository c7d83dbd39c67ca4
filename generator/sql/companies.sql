-- One row per company: the fields of a /api/companies listing row (CompanyListItem) plus filter columns.
SELECT
    c.id,
    c.slug,
    c.name,
    c.sector,
    s.name AS sector_name,
    c.country,
    n.name AS country_name,
    c.status,
    c.ticker,
    c.exchange,
    c.valuation_usd,
    c.valuation_date,
    c.valuation_basis,
    r.total_raised_usd,
    r.last_round_stage,
    r.last_round_date,
    '/api/companies/' || c.slug || '.json' AS url
FROM companies AS c
JOIN sectors AS s ON s.slug = c.sector
JOIN countries AS n ON n.code = c.country
LEFT JOIN company_funding AS r ON r.company_id = c.id
