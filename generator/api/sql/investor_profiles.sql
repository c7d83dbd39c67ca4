-- One row per investor: its profile (InvestorProfile), the listing's row (investor_rows in views.sql) with its
-- portfolio (latest round first) and the rounds it led (newest first).
WITH portfolio AS (
    SELECT investor_id, list({'company': company, 'rounds': rounds, 'led': led, 'first_round_date': first_round_date,
                              'last_round_date': last_round_date} ORDER BY last_round_date DESC, company_id)
               AS portfolio
    FROM (
        SELECT ri.investor_id, c.id AS company_id, any_value(cr.ref) AS company, count(*)::INTEGER AS rounds,
               bool_or(ri.is_lead) AS led, min(r.announced_date) AS first_round_date,
               max(r.announced_date) AS last_round_date
        FROM round_investors AS ri
        JOIN funding_rounds AS r ON r.id = ri.round_id
        JOIN companies AS c ON c.id = r.company_id
        JOIN company_refs AS cr ON cr.id = c.id
        GROUP BY ri.investor_id, c.id
    )
    GROUP BY investor_id
), led AS (
    SELECT ri.investor_id, list({'id': r.id, 'company': cr.ref, 'stage': r.stage, 'announced_date': r.announced_date,
                                 'amount_usd': r.amount_usd} ORDER BY r.announced_date DESC, r.id DESC) AS rounds_led
    FROM round_investors AS ri
    JOIN funding_rounds AS r ON r.id = ri.round_id
    JOIN company_refs AS cr ON cr.id = r.company_id
    WHERE ri.is_lead
    GROUP BY ri.investor_id
)
SELECT i.*, coalesce(p.portfolio, []) AS portfolio, coalesce(l.rounds_led, []) AS rounds_led
FROM investor_rows AS i
LEFT JOIN portfolio AS p ON p.investor_id = i.id
LEFT JOIN led AS l ON l.investor_id = i.id
