-- Shared views over the loaded tables, created once before any route's SQL runs.
-- company_refs: the reference to a company that every row about a company carries (CompanyRef).
CREATE VIEW company_refs AS
SELECT id, {'id': id, 'slug': slug, 'name': name, 'sector': sector, 'country': country,
            'url': '/api/companies/' || slug || '.json'} AS ref
FROM companies;

-- Per company, the aggregates several listings and the profile derive from (defined once, here):
-- funding: total disclosed amount, latest round's stage and date, latest disclosed post-money valuation.
CREATE VIEW company_funding AS
SELECT
    company_id,
    sum(amount_usd)::BIGINT AS total_raised_usd,
    arg_max(stage, (announced_date, id)) AS last_round_stage,
    max(announced_date) AS last_round_date,
    arg_max(post_money_valuation_usd, (announced_date, id))
        FILTER (WHERE post_money_valuation_usd IS NOT NULL) AS last_round_post_money_usd
FROM funding_rounds
GROUP BY company_id;

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

-- secondary market: the latest monthly implied valuation (no mark lies after as_of: the loader checks).
CREATE VIEW company_secondary AS
SELECT company_id, max(month) AS latest_month, arg_max(implied_valuation_usd, month) AS latest_valuation_usd
FROM secondary_prices
GROUP BY company_id;

-- IPO plans: the status of the company's latest IPO record (by the date that goes with its status).
CREATE VIEW company_ipo_status AS
SELECT company_id,
       arg_max(status, (coalesce(postponed_date, withdrawn_date, listing_date, expected_date, filed_date,
                                 announced_date), id)) AS ipo_status
FROM ipos
GROUP BY company_id;
