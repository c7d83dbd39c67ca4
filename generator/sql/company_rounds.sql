-- Funding rounds per company, newest first, each with its investors (leads first, then by name).
SELECT
    r.company_id,
    r.id,
    r.stage,
    r.announced_date,
    r.amount_usd,
    r.post_money_valuation_usd,
    r.basis,
    coalesce(list({'id': i.id, 'slug': i.slug, 'name': i.name, 'is_lead': ri.is_lead}
                  ORDER BY ri.is_lead DESC, i.name, i.id) FILTER (WHERE i.id IS NOT NULL), []) AS investors,
    k."transaction",
    r.currency_converted_from
FROM funding_rounds AS r
JOIN round_kinds AS k ON k.id = r.id
LEFT JOIN round_investors AS ri ON ri.round_id = r.id
LEFT JOIN investors AS i ON i.id = ri.investor_id
GROUP BY ALL
ORDER BY r.company_id, r.announced_date DESC, r.id DESC
