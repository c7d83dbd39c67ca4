-- Per investor: rounds it led, newest first.
SELECT
    ri.investor_id,
    r.id,
    (SELECT ref FROM company_refs AS cr WHERE cr.id = c.id) AS company,
    r.stage,
    r.announced_date,
    r.amount_usd
FROM round_investors AS ri
JOIN funding_rounds AS r ON r.id = ri.round_id
JOIN companies AS c ON c.id = r.company_id
WHERE ri.is_lead
ORDER BY ri.investor_id, r.announced_date DESC, r.id DESC
