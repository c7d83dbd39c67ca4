-- The unified search index: companies, investors and industries, each with its type and link.
SELECT 'company:' || c.slug AS entry_key, 'company' AS type, c.slug, c.name,
       s.name || ' · ' || n.name || CASE WHEN c.ticker IS NOT NULL THEN ' · ' || c.ticker ELSE '' END AS subtitle,
       c.sector, c.country, '/api/companies/' || c.slug || '.json' AS url,
       c.name || ' ' || coalesce(c.ticker, '') AS search_text
FROM companies AS c JOIN sectors AS s ON s.slug = c.sector JOIN countries AS n ON n.code = c.country
UNION ALL
SELECT 'investor:' || i.slug, 'investor', i.slug, i.name, i.type || ' investor · ' || n.name,
       NULL, i.country, '/api/investors/' || i.slug || '.json', i.name
FROM investors AS i JOIN countries AS n ON n.code = i.country
UNION ALL
SELECT 'industry:' || slug, 'industry', slug, name, description, slug, NULL, '/api/industries/' || slug || '.json', name
FROM sectors
