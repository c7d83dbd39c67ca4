-- One row per investor with portfolio, round and lead counts.
SELECT
    i.id,
    i.slug,
    i.name,
    i.type,
    i.country,
    n.name AS country_name,
    i.founded_year,
    i.website,
    count(DISTINCT r.company_id)::INTEGER AS portfolio_count,
    count(ri.round_id)::INTEGER AS rounds_count,
    count(ri.round_id) FILTER (WHERE ri.is_lead)::INTEGER AS lead_count,
    '/api/investors/' || i.slug || '.json' AS url
FROM investors AS i
JOIN countries AS n ON n.code = i.country
LEFT JOIN round_investors AS ri ON ri.investor_id = i.id
LEFT JOIN funding_rounds AS r ON r.id = ri.round_id
GROUP BY ALL
