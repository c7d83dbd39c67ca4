-- One row per news item, with its source: a feed's publisher and article URL, or the record it was compiled from
-- (compiled without a linked record: the company record itself).
SELECT
    n.id,
    n.published_date,
    n.headline,
    n.summary,
    n.publisher,
    n.article_url,
    n.origin,
    CASE
        WHEN n.ipo_id IS NOT NULL THEN {'table': 'ipos', 'id': n.ipo_id}
        WHEN n.round_id IS NOT NULL THEN {'table': 'funding_rounds', 'id': n.round_id}
        WHEN n.filing_id IS NOT NULL THEN {'table': 'filings', 'id': n.filing_id}
        WHEN n.offering_id IS NOT NULL THEN {'table': 'offerings', 'id': n.offering_id}
        WHEN n.origin = 'compiled' THEN {'table': 'companies', 'id': n.company_id}
    END AS compiled_from,
    coalesce(n.tags, []) AS tags,
    c.ref AS company
FROM news AS n
JOIN company_refs AS c ON c.id = n.company_id
