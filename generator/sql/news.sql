-- One row per news item.
SELECT
    n.id,
    n.published_date,
    n.headline,
    n.summary,
    n.publisher,
    n.tags,
    {'id': c.id, 'slug': c.slug, 'name': c.name, 'sector': c.sector, 'country': c.country,
     'url': '/api/companies/' || c.slug} AS company
FROM news AS n
JOIN companies AS c ON c.id = n.company_id
