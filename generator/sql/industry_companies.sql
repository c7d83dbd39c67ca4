-- Per sector: every company, highest valuation first (nulls last).
SELECT
    sector,
    {'id': id, 'slug': slug, 'name': name, 'sector': sector, 'country': country,
     'url': '/api/companies/' || slug || '.json'} AS company,
    valuation_usd
FROM companies
ORDER BY sector, valuation_usd DESC NULLS LAST, id
