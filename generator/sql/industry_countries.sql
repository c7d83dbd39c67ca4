-- Per sector: company counts by country, most first.
SELECT sector, country, count(*)::INTEGER AS count
FROM companies GROUP BY ALL ORDER BY sector, count DESC, country
