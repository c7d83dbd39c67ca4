-- One row per funding round, with its lead investors.
SELECT
    r.id,
    (SELECT ref FROM company_refs AS cr WHERE cr.id = c.id) AS company,
    r.stage,
    r.announced_date,
    year(r.announced_date) AS year,
    r.amount_usd,
    r.post_money_valuation_usd,
    r.basis,
    coalesce(list({'id': i.id, 'slug': i.slug, 'name': i.name, 'url': '/api/investors/' || i.slug || '.json'}
                  ORDER BY i.name, i.id) FILTER (WHERE ri.is_lead), []) AS lead_investors,
    count(ri.investor_id)::INTEGER AS investors_count,
    k."transaction",
    r.currency_converted_from
FROM funding_rounds AS r
JOIN round_kinds AS k ON k.id = r.id
JOIN companies AS c ON c.id = r.company_id
LEFT JOIN round_investors AS ri ON ri.round_id = r.id
LEFT JOIN investors AS i ON i.id = ri.investor_id
GROUP BY ALL
