-- One row per company: the fields of a /api/companies listing row (CompanyListItem) plus filter columns.
WITH rounds AS (
    SELECT
        company_id,
        sum(amount_usd) AS total_raised_usd,
        arg_max(stage, (announced_date, id)) AS last_round_stage,
        max(announced_date) AS last_round_date
    FROM funding_rounds
    GROUP BY company_id
)
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
    r.total_raised_usd::BIGINT AS total_raised_usd,
    r.last_round_stage,
    r.last_round_date,
    '/api/companies/' || c.slug AS url
FROM companies AS c
JOIN sectors AS s ON s.slug = c.sector
JOIN countries AS n ON n.code = c.country
LEFT JOIN rounds AS r ON r.company_id = c.id
