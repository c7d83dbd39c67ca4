-- Per investor: each portfolio company with rounds joined, whether it led one, first and last round dates.
SELECT
    ri.investor_id,
    (SELECT ref FROM company_refs AS cr WHERE cr.id = c.id) AS company,
    count(*)::INTEGER AS rounds,
    bool_or(ri.is_lead) AS led,
    min(r.announced_date) AS first_round_date,
    max(r.announced_date) AS last_round_date
FROM round_investors AS ri
JOIN funding_rounds AS r ON r.id = ri.round_id
JOIN companies AS c ON c.id = r.company_id
GROUP BY ri.investor_id, c.id, c.slug, c.name, c.sector, c.country
ORDER BY ri.investor_id, last_round_date DESC, c.id
