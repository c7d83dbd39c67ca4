-- Per sector: equity rounds and their disclosed amounts by year, newest first (stake purchases, buyouts and debt
-- are not funding raised: round_kinds in views.sql).
SELECT c.sector, year(r.announced_date) AS year, count(*)::INTEGER AS rounds, sum(r.amount_usd)::BIGINT AS amount_usd
FROM funding_rounds AS r JOIN round_kinds AS k ON k.id = r.id JOIN companies AS c ON c.id = r.company_id
WHERE k."transaction" = 'equity'
GROUP BY ALL ORDER BY c.sector, year DESC
