-- One row per sector: its industry detail (IndustryDetail), the listing's row (industry_rows in views.sql) with
-- company counts by country (most first), equity funding by year (newest first; stake purchases, buyouts and debt
-- are not funding raised: round_kinds) and every company (highest current valuation first, nulls last).
-- Each batch's lists of companies first, into a table (details._source): a sector's list is one value (51,578
-- companies at 300k), and in one plan with the rest it ran past 64 MB of DuckDB's memory.
CREATE OR REPLACE TEMP TABLE industry_companies AS
SELECT c.sector, list({'company': cr.ref, 'valuation_usd': v.current_valuation_usd}
                      ORDER BY v.current_valuation_usd DESC NULLS LAST, c.id) AS companies
FROM companies AS c
JOIN company_valuation AS v ON v.company_id = c.id
JOIN company_refs AS cr ON cr.id = c.id
WHERE c.sector >= $_first AND c.sector <= $_last
GROUP BY c.sector;

WITH countries AS (
    SELECT sector, list({'country': country, 'count': count} ORDER BY count DESC, country) AS companies_by_country
    FROM (SELECT sector, country, count(*)::INTEGER AS count FROM companies GROUP BY ALL)
    GROUP BY sector
), funding AS (
    SELECT sector, list({'year': year, 'rounds': rounds, 'amount_usd': amount_usd} ORDER BY year DESC)
               AS funding_by_year
    FROM (
        SELECT c.sector, year(r.announced_date) AS year, count(*)::INTEGER AS rounds,
               sum(r.amount_usd)::BIGINT AS amount_usd
        FROM funding_rounds AS r JOIN round_kinds AS k ON k.id = r.id JOIN companies AS c ON c.id = r.company_id
        WHERE k."transaction" = 'equity'
        GROUP BY ALL
    )
    GROUP BY sector
)
SELECT i.*, coalesce(n.companies_by_country, []) AS companies_by_country,
       coalesce(f.funding_by_year, []) AS funding_by_year, coalesce(c.companies, []) AS companies
FROM industry_rows AS i
LEFT JOIN countries AS n ON n.sector = i.slug
LEFT JOIN funding AS f ON f.sector = i.slug
LEFT JOIN industry_companies AS c ON c.sector = i.slug
