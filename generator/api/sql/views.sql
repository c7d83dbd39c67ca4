-- Shared views over the loaded tables, created once before any route's SQL runs.
-- company_refs: the reference to a company that every row about a company carries (CompanyRef).
CREATE VIEW company_refs AS
SELECT id, {'id': id, 'slug': slug, 'name': name, 'sector': sector, 'country': country,
            'url': '/api/companies/' || slug || '.json'} AS ref
FROM companies;

-- Per round: what kind of transaction it is (a funding_rounds.transaction value, or the default of its stage):
-- round_transaction(transaction, stage), and every round's in round_kinds.
CREATE MACRO round_transaction(recorded, stage) AS
    coalesce(recorded, CASE WHEN stage = 'debt' THEN 'debt' ELSE 'equity' END);
CREATE VIEW round_kinds AS
SELECT id, company_id, round_transaction("transaction", stage) AS "transaction"
FROM funding_rounds;

-- Per company, the aggregates several listings and the profile derive from (defined once, here):
-- funding: total disclosed equity raised (rounds of new equity only), the disclosed amounts of other transactions
-- (stake purchases, buyouts, debt), latest round's stage and date, latest disclosed post-money valuation.
CREATE VIEW company_funding AS
SELECT
    r.company_id,
    sum(r.amount_usd) FILTER (WHERE round_transaction(r."transaction", r.stage) = 'equity')::BIGINT AS total_raised_usd,
    sum(r.amount_usd) FILTER (WHERE round_transaction(r."transaction", r.stage) <> 'equity')::BIGINT
        AS other_transactions_usd,
    arg_max(r.stage, (r.announced_date, r.id)) AS last_round_stage,
    max(r.announced_date) AS last_round_date,
    arg_max(r.post_money_valuation_usd, (r.announced_date, r.id))
        FILTER (WHERE r.post_money_valuation_usd IS NOT NULL) AS last_round_post_money_usd
FROM funding_rounds AS r  -- the kind by the macro, not a join on round_kinds: at 300k companies the join's table and
GROUP BY r.company_id;     -- the groups' did not fit 64 MB of DuckDB's memory together

-- valuation: whether the company's valuation is current. Rule: a public company's market capitalisation and a
-- private company's latest valuation are current, unless companies.valuation_is_current says false (superseded or
-- stale: insolvency, a public write-down without a new figure); an acquired company's figure (its acquisition
-- price or last private mark) and a closed company's last mark are history. Rankings, the minValuation ladder and
-- industry totals use current valuations only.
CREATE VIEW company_valuation AS
SELECT id AS company_id,
       valuation_usd IS NOT NULL AND status IN ('public', 'private') AND coalesce(valuation_is_current, true)
           AS valuation_is_current,
       CASE WHEN valuation_usd IS NOT NULL AND status IN ('public', 'private') AND coalesce(valuation_is_current, true)
            THEN valuation_usd END AS current_valuation_usd
FROM companies;

-- revenue: the latest fiscal year with revenue, and its growth over the year before (when that had revenue).
CREATE VIEW company_revenue AS
WITH latest AS (
    SELECT company_id, arg_max(revenue_usd, fiscal_year) AS revenue_usd, max(fiscal_year) AS fiscal_year
    FROM financials WHERE revenue_usd IS NOT NULL GROUP BY company_id
)
SELECT l.company_id, l.revenue_usd, l.fiscal_year, p.revenue_usd AS previous_revenue_usd,
       CASE WHEN p.revenue_usd > 0 THEN l.revenue_usd / p.revenue_usd - 1 END AS revenue_growth
FROM latest AS l
LEFT JOIN financials AS p ON p.company_id = l.company_id AND p.fiscal_year = l.fiscal_year - 1;

-- secondary market: the latest monthly implied valuation (no mark lies after as_of: the loader checks), with the
-- date of the transaction it rests on.
CREATE VIEW company_secondary AS
SELECT company_id, max(month) AS latest_month, arg_max(implied_valuation_usd, month) AS latest_valuation_usd,
       arg_max(observed_date, month) AS latest_observed_date
FROM secondary_prices
GROUP BY company_id;

-- IPO plans: the status of the company's latest IPO record (by the date that goes with its status).
CREATE VIEW company_ipo_status AS
SELECT company_id,
       arg_max(status, (coalesce(postponed_date, withdrawn_date, listing_date, expected_date, filed_date,
                                 announced_date), id)) AS ipo_status
FROM ipos
GROUP BY company_id;

-- The names and tickers a company is also known by: the aliases table (former names with their dates, names a
-- source uses) and the tickers of its listed IPOs other than its current one (dated by the listing). Search and
-- the listings' q find a company by them (also_known_as); the profile lists them with dates and source.
CREATE VIEW company_aliases AS
SELECT company_id, kind, alias, from_date, to_date, source FROM aliases
UNION ALL
SELECT i.company_id, 'ticker', i.ticker, min(i.listing_date), NULL, 'listed IPO record'
FROM ipos AS i
JOIN companies AS c ON c.id = i.company_id
WHERE i.status = 'listed' AND i.ticker IS NOT NULL AND i.ticker IS DISTINCT FROM c.ticker
  AND NOT EXISTS (SELECT 1 FROM aliases AS a WHERE a.company_id = i.company_id AND a.kind = 'ticker'
                  AND a.alias = i.ticker)
GROUP BY i.company_id, i.ticker;

CREATE VIEW company_also_known_as AS
SELECT company_id, list(alias ORDER BY kind, alias) AS also_known_as
FROM company_aliases
GROUP BY company_id;

-- The companies listing's rows (companies.sql), which the pre-IPO rows extend (pre_ipos.sql): the fields of a
-- CompanyListItem plus filter columns (founded_year: not in the rows' model, so no file carries it).
-- valuation_usd/_date/_basis are the current valuation only (company_valuation says which are current); the last
-- known figure, current or not, is in the profile.
CREATE VIEW company_rows AS
SELECT
    c.id,
    c.slug,
    c.name,
    c.sector,
    c.country,
    c.status,
    c.ticker,
    c.exchange,
    v.current_valuation_usd AS valuation_usd,
    CASE WHEN v.valuation_is_current THEN c.valuation_date END AS valuation_date,
    CASE WHEN v.valuation_is_current THEN c.valuation_basis END AS valuation_basis,
    r.total_raised_usd,
    r.last_round_stage,
    r.last_round_date,
    '/api/companies/' || c.slug || '.json' AS url,
    v.valuation_is_current,
    coalesce(ak.also_known_as, []) AS also_known_as,
    c.founded_year
FROM companies AS c
JOIN company_valuation AS v ON v.company_id = c.id
LEFT JOIN company_funding AS r ON r.company_id = c.id
LEFT JOIN company_also_known_as AS ak ON ak.company_id = c.id;

-- The investors listing's rows (investors.sql), which each profile extends (investor_profiles.sql):
-- One row per investor with portfolio, round and lead counts.
CREATE VIEW investor_rows AS
WITH portfolio AS (  -- counted by investor alone, not grouped by every column of the investor: fits 128 MB at 300k
    SELECT investor_id, count(company_id) AS portfolio_count
    FROM (SELECT DISTINCT ri.investor_id, r.company_id
          FROM round_investors AS ri JOIN funding_rounds AS r ON r.id = ri.round_id)
    GROUP BY investor_id
), rounds AS (
    SELECT investor_id, count(round_id) AS rounds_count, count(round_id) FILTER (WHERE is_lead) AS lead_count
    FROM round_investors
    GROUP BY investor_id
)
SELECT
    i.id,
    i.slug,
    i.name,
    i.type,
    i.country,
    n.name AS country_name,
    i.founded_year,
    i.website,
    coalesce(p.portfolio_count, 0)::INTEGER AS portfolio_count,
    coalesce(c.rounds_count, 0)::INTEGER AS rounds_count,
    coalesce(c.lead_count, 0)::INTEGER AS lead_count,
    '/api/investors/' || i.slug || '.json' AS url
FROM investors AS i
JOIN countries AS n ON n.code = i.country
LEFT JOIN portfolio AS p ON p.investor_id = i.id
LEFT JOIN rounds AS c ON c.investor_id = i.id;

-- The industries listing's rows (industries.sql), which each profile extends (industry_details.sql):
-- One row per sector: company counts, valuation and funding aggregates, IPO counts, top companies.
-- Valuation figures are over current valuations only (company_valuation); total_raised_usd sums equity rounds,
-- other_transactions_usd stake purchases, buyouts and debt (round_kinds).
CREATE VIEW industry_rows AS
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
LEFT JOIN ipo_counts AS ic ON ic.sector = s.slug;
