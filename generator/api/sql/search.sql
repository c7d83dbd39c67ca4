-- The unified search index: companies, investors and industries, each with its type and link. A company is also
-- found by its ticker and the names and tickers it is also known by (former names, tickers of earlier listings).
SELECT 'company:' || c.slug AS entry_key, 'company' AS type, c.slug, c.name,
       s.name || ' · ' || n.name || CASE WHEN c.ticker IS NOT NULL THEN ' · ' || c.ticker ELSE '' END AS subtitle,
       c.sector, c.country, '/api/companies/' || c.slug || '.json' AS url,
       c.ticker, coalesce(ak.also_known_as, []) AS also_known_as
FROM companies AS c JOIN sectors AS s ON s.slug = c.sector JOIN countries AS n ON n.code = c.country
LEFT JOIN company_also_known_as AS ak ON ak.company_id = c.id
UNION ALL
SELECT 'investor:' || i.slug, 'investor', i.slug, i.name, i.type || ' investor · ' || n.name,
       NULL, i.country, '/api/investors/' || i.slug || '.json', NULL, []
FROM investors AS i JOIN countries AS n ON n.code = i.country
UNION ALL
SELECT 'industry:' || slug, 'industry', slug, name, description, slug, NULL, '/api/industries/' || slug || '.json',
       NULL, []
FROM sectors
