-- Shared views over the loaded tables, created once before any route's SQL runs.
-- company_refs: the reference to a company that every row about a company carries (CompanyRef).
CREATE VIEW company_refs AS
SELECT id, {'id': id, 'slug': slug, 'name': name, 'sector': sector, 'country': country,
            'url': '/api/companies/' || slug || '.json'} AS ref
FROM companies;

-- Per round: what kind of transaction it is (a funding_rounds.transaction value, or the default of its stage).
CREATE VIEW round_kinds AS
SELECT id, company_id,
       coalesce("transaction", CASE WHEN stage = 'debt' THEN 'debt' ELSE 'equity' END) AS "transaction"
FROM funding_rounds;

-- Per company, the aggregates several listings and the profile derive from (defined once, here):
-- funding: total disclosed equity raised (rounds of new equity only), the disclosed amounts of other transactions
-- (stake purchases, buyouts, debt), latest round's stage and date, latest disclosed post-money valuation.
CREATE VIEW company_funding AS
SELECT
    r.company_id,
    sum(r.amount_usd) FILTER (WHERE k."transaction" = 'equity')::BIGINT AS total_raised_usd,
    sum(r.amount_usd) FILTER (WHERE k."transaction" <> 'equity')::BIGINT AS other_transactions_usd,
    arg_max(r.stage, (r.announced_date, r.id)) AS last_round_stage,
    max(r.announced_date) AS last_round_date,
    arg_max(r.post_money_valuation_usd, (r.announced_date, r.id))
        FILTER (WHERE r.post_money_valuation_usd IS NOT NULL) AS last_round_post_money_usd
FROM funding_rounds AS r
JOIN round_kinds AS k ON k.id = r.id
GROUP BY r.company_id;

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
