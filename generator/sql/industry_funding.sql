-- Per sector: funding rounds and disclosed amounts by year, newest first.
SELECT c.sector, year(r.announced_date) AS year, count(*)::INTEGER AS rounds, sum(r.amount_usd)::BIGINT AS amount_usd
FROM funding_rounds AS r JOIN companies AS c ON c.id = r.company_id
GROUP BY ALL ORDER BY c.sector, year DESC
