-- One row per sector: company counts, valuation and funding aggregates, IPO counts, top companies.
-- Valuation figures are over current valuations only (company_valuation); total_raised_usd sums equity rounds,
-- other_transactions_usd stake purchases, buyouts and debt (round_kinds).
WITH raised AS (
    SELECT c.sector,
           sum(r.amount_usd) FILTER (WHERE k."transaction" = 'equity') AS total_raised_usd,
           sum(r.amount_usd) FILTER (WHERE k."transaction" <> 'equity') AS other_transactions_usd
    FROM funding_rounds AS r JOIN round_kinds AS k ON k.id = r.id JOIN companies AS c ON c.id = r.company_id
    GROUP BY c.sector
), ipo_counts AS (
    SELECT sector, list({'status': status, 'count': n} ORDER BY status) AS ipo_counts FROM (
        SELECT c.sector, i.status, count(*)::INTEGER AS n
        FROM ipos AS i JOIN companies AS c ON c.id = i.company_id GROUP BY ALL
    ) GROUP BY sector
), valued AS (
    SELECT c.id, c.slug, c.name, c.sector, c.country, c.status, v.current_valuation_usd AS valuation_usd
    FROM companies AS c JOIN company_valuation AS v ON v.company_id = c.id
), ranked AS (
    SELECT sector, {'company': {'id': id, 'slug': slug, 'name': name, 'sector': sector, 'country': country,
                                'url': '/api/companies/' || slug || '.json'},
                    'valuation_usd': valuation_usd} AS entry,
           row_number() OVER (PARTITION BY sector ORDER BY valuation_usd DESC NULLS LAST, id) AS position
    FROM valued
), stats AS (
    SELECT
        sector,
        count(*)::INTEGER AS company_count,
        count(*) FILTER (WHERE status = 'public')::INTEGER AS public_count,
        count(*) FILTER (WHERE status = 'private')::INTEGER AS private_count,
        count(valuation_usd)::INTEGER AS valued_company_count,
        sum(valuation_usd)::BIGINT AS total_valuation_usd,
        round(median(valuation_usd))::BIGINT AS median_valuation_usd
    FROM valued GROUP BY sector
)
SELECT
    s.slug,
    s.name,
    s.description,
    coalesce(st.company_count, 0) AS company_count,
    coalesce(st.public_count, 0) AS public_count,
    coalesce(st.private_count, 0) AS private_count,
    coalesce(st.valued_company_count, 0) AS valued_company_count,
    st.total_valuation_usd,
    st.median_valuation_usd,
    r.total_raised_usd::BIGINT AS total_raised_usd,
    coalesce(ic.ipo_counts, []) AS ipo_counts,
    coalesce((SELECT list(entry ORDER BY position) FROM ranked WHERE ranked.sector = s.slug AND position <= 5), [])
        AS top_companies,
    '/api/industries/' || s.slug || '.json' AS url,
    r.other_transactions_usd::BIGINT AS other_transactions_usd
FROM sectors AS s
LEFT JOIN stats AS st ON st.sector = s.slug
LEFT JOIN raised AS r ON r.sector = s.slug
LEFT JOIN ipo_counts AS ic ON ic.sector = s.slug
