-- One row per private-market offering.
SELECT
    o.id,
    o.kind,
    o.status,
    c.ref AS company,
    o.announced_date,
    year(o.announced_date) AS year,
    o.close_date,
    o.price_per_share_cents,
    o.amount_usd,
    o.implied_valuation_usd,
    CASE WHEN i.id IS NOT NULL THEN
        {'id': i.id, 'slug': i.slug, 'name': i.name, 'url': '/api/investors/' || i.slug || '.json'} END AS lead_investor,
    o.description,
    o.basis,
    o.currency_converted_from
FROM offerings AS o
JOIN company_refs AS c ON c.id = o.company_id
LEFT JOIN investors AS i ON i.id = o.lead_investor_id
