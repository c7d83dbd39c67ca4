-- One row per funding round, with its lead investors (each round's investors aggregated first, by round alone: a
-- group of every column of the round held more than 128 MB of DuckDB's memory at 300k companies).
WITH leads AS (  -- sorted by name, then id (list_sort over structs of those first): an ordered aggregate
    SELECT                -- (list(... ORDER BY ...)) of these structs needed more than 128 MB at 300k companies
        ri.round_id,
        list_transform(list_sort(list({'name': i.name, 'id': i.id, 'slug': i.slug})),
                       lambda l: {'id': l.id, 'slug': l.slug, 'name': l.name,
                                  'url': '/api/investors/' || l.slug || '.json'}) AS lead_investors
    FROM round_investors AS ri
    LEFT JOIN investors AS i ON i.id = ri.investor_id
    WHERE ri.is_lead
    GROUP BY ri.round_id
), backers AS (
    SELECT round_id, count(investor_id) AS investors_count FROM round_investors GROUP BY round_id
)
SELECT
    r.id,
    c.ref AS company,
    r.stage,
    r.announced_date,
    year(r.announced_date) AS year,
    r.amount_usd,
    r.post_money_valuation_usd,
    r.basis,
    coalesce(l.lead_investors, []) AS lead_investors,
    coalesce(b.investors_count, 0)::INTEGER AS investors_count,
    k."transaction",
    r.currency_converted_from
FROM funding_rounds AS r
JOIN round_kinds AS k ON k.id = r.id
JOIN company_refs AS c ON c.id = r.company_id
LEFT JOIN leads AS l ON l.round_id = r.id
LEFT JOIN backers AS b ON b.round_id = r.id
