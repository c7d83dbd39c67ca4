-- Per sector: every company, highest current valuation first (nulls last: no current valuation).
SELECT
    c.sector,
    {'id': c.id, 'slug': c.slug, 'name': c.name, 'sector': c.sector, 'country': c.country,
     'url': '/api/companies/' || c.slug || '.json'} AS company,
    v.current_valuation_usd AS valuation_usd
FROM companies AS c
JOIN company_valuation AS v ON v.company_id = c.id
ORDER BY c.sector, v.current_valuation_usd DESC NULLS LAST, c.id
