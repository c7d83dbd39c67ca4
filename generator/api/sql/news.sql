-- One row per news item.
SELECT
    n.id,
    n.published_date,
    n.headline,
    n.summary,
    n.publisher,
    n.tags,
    (SELECT ref FROM company_refs AS cr WHERE cr.id = c.id) AS company
FROM news AS n
JOIN companies AS c ON c.id = n.company_id
