-- One row per company: its whole profile (CompanyProfile), its parts as structs and lists in their models' field
-- order. $methodology is the analysis group's constant methodology; $as_of is the dataset's as-of date.
-- The sector statistics (windows over every company) first, into a table: in the profiles' plan, with its joins, they
-- held more than 128 MB of DuckDB's memory at 300k companies, for a batch of any size (details._source).
-- Then, for each batch of companies ($_first to $_last by id), the parts made from the other tables, into three
-- tables: the joins and aggregates of one plan for them all held more than 64 MB for a batch of 5,000.
CREATE OR REPLACE TEMP TABLE company_sector_stats AS
WITH valued AS (
    SELECT c.id, c.sector, v.current_valuation_usd AS valuation_usd
    FROM companies AS c JOIN company_valuation AS v ON v.company_id = c.id
), sector_stats AS (
    SELECT
        id,
        valuation_usd,
        count(*) OVER (PARTITION BY sector) AS sector_companies,
        CASE WHEN valuation_usd IS NOT NULL THEN
            rank() OVER (PARTITION BY sector ORDER BY valuation_usd DESC NULLS LAST) END AS sector_rank,
        CASE WHEN valuation_usd IS NOT NULL THEN
            count(valuation_usd) OVER (PARTITION BY sector ORDER BY valuation_usd ASC NULLS LAST
                                       RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            / count(valuation_usd) OVER (PARTITION BY sector) END AS sector_percentile
    FROM valued
)
SELECT * FROM sector_stats;

CREATE OR REPLACE TEMP TABLE company_profile_funding AS
WITH financials AS (
    SELECT company_id, list({
        'fiscal_year': fiscal_year, 'period_end': period_end, 'revenue_usd': revenue_usd,
        'net_income_usd': net_income_usd, 'operating_income_usd': operating_income_usd,
        'gross_profit_usd': gross_profit_usd, 'gross_margin': gross_margin, 'net_margin': net_margin,
        'revenue_growth': revenue_growth, 'employees': employees, 'shares_outstanding': shares_outstanding,
        'basis': basis, 'currency_converted_from': currency_converted_from,
        'filing': CASE WHEN accession_number IS NOT NULL THEN {
            'accession_number': accession_number, 'filed_date': filed_date, 'url': filing_url,
            'restated': CASE WHEN restated_accession_number IS NOT NULL THEN {
                'accession_number': restated_accession_number, 'date': restated_date, 'url': restated_url} END}
            END} ORDER BY fiscal_year) AS financials
    FROM (
        SELECT f.*,
            -- a filing's EDGAR index page: /Archives/edgar/data/{cik}/{accession without dashes}/{accession}-index.htm
            CASE WHEN c.cik <> 0 THEN printf('https://www.sec.gov/Archives/edgar/data/%d/%s/%s-index.htm', c.cik,
                                             replace(f.accession_number, '-', ''), f.accession_number) END AS filing_url,
            CASE WHEN c.cik <> 0 THEN printf('https://www.sec.gov/Archives/edgar/data/%d/%s/%s-index.htm', c.cik,
                                             replace(f.restated_accession_number, '-', ''),
                                             f.restated_accession_number) END AS restated_url,
            round(CASE WHEN f.revenue_usd > 0 THEN f.net_income_usd / f.revenue_usd END, 4) AS net_margin,
            round(CASE WHEN lag(f.revenue_usd) OVER w > 0 AND lag(f.fiscal_year) OVER w = f.fiscal_year - 1
                       THEN f.revenue_usd / lag(f.revenue_usd) OVER w - 1 END, 4) AS revenue_growth
        FROM financials AS f
        JOIN companies AS c ON c.id = f.company_id
        WINDOW w AS (PARTITION BY f.company_id ORDER BY f.fiscal_year)
    )
    GROUP BY company_id
), round_rows AS (
    SELECT r.company_id, r.id, r.stage, r.announced_date, r.amount_usd, r.post_money_valuation_usd, r.basis,
        coalesce(list({'id': i.id, 'slug': i.slug, 'name': i.name, 'is_lead': ri.is_lead}
                      ORDER BY ri.is_lead DESC, i.name, i.id) FILTER (WHERE i.id IS NOT NULL), []) AS investors,
        round_transaction(r."transaction", r.stage) AS "transaction", r.currency_converted_from
    FROM funding_rounds AS r  -- the kind by the macro: a join on round_kinds held past 64 MB at 300k companies
    LEFT JOIN round_investors AS ri ON ri.round_id = r.id
    LEFT JOIN investors AS i ON i.id = ri.investor_id
    GROUP BY ALL
), rounds AS (
    SELECT company_id, list({
        'id': id, 'stage': stage, 'announced_date': announced_date, 'amount_usd': amount_usd,
        'post_money_valuation_usd': post_money_valuation_usd, 'basis': basis, 'investors': investors,
        'transaction': "transaction", 'currency_converted_from': currency_converted_from}
        ORDER BY announced_date DESC, id DESC) AS rounds,
        count(*)::INTEGER AS rounds_count
    FROM round_rows
    GROUP BY company_id
), round_investor_counts AS (
    SELECT r.company_id, count(DISTINCT i.id)::INTEGER AS investors_count
    FROM funding_rounds AS r
    JOIN round_investors AS ri ON ri.round_id = r.id
    JOIN investors AS i ON i.id = ri.investor_id
    GROUP BY r.company_id

)
SELECT c.id, coalesce(f.financials, []) AS financials, coalesce(r.rounds, []) AS rounds,
    coalesce(r.rounds_count, 0) AS rounds_count, coalesce(ic.investors_count, 0) AS investors_count
FROM companies AS c
LEFT JOIN financials AS f ON f.company_id = c.id
LEFT JOIN rounds AS r ON r.company_id = c.id
LEFT JOIN round_investor_counts AS ic ON ic.company_id = c.id
WHERE c.id >= $_first AND c.id <= $_last;

CREATE OR REPLACE TEMP TABLE company_profile_records AS
WITH ipos AS (
    SELECT company_id, list({
        'id': id, 'status': status, 'status_date': status_date, 'exchange': exchange, 'ticker': ticker,
        'listing_kind': listing_kind, 'filed_date': filed_date, 'expected_date': expected_date,
        'listing_date': listing_date, 'offer_price_cents': offer_price_cents, 'proceeds_usd': proceeds_usd,
        'valuation_at_ipo_usd': valuation_at_ipo_usd, 'first_day_return': first_day_return}
        ORDER BY status_date DESC, id DESC) AS ipos
    FROM (
        SELECT *,
            CASE status
                WHEN 'pipeline' THEN announced_date WHEN 'filed' THEN filed_date WHEN 'upcoming' THEN expected_date
                WHEN 'listed' THEN listing_date WHEN 'withdrawn' THEN withdrawn_date
                WHEN 'postponed' THEN postponed_date
            END AS status_date,
            round(CASE WHEN offer_price_cents > 0 THEN first_day_close_cents / offer_price_cents - 1 END, 4)
                AS first_day_return
        FROM ipos
    )
    GROUP BY company_id
), alias_lists AS (
    SELECT company_id, list({'kind': kind, 'alias': alias, 'from_date': from_date, 'to_date': to_date,
                             'source': source}
                            ORDER BY kind, from_date NULLS LAST, to_date NULLS LAST, alias) AS also_known_as
    FROM company_aliases
    GROUP BY company_id
), provenance_rows AS (
    -- provenance.csv's rows about this company's records, each with the profile group its table belongs to
    SELECT coalesce(CASE WHEN p."table" IN ('companies', 'aliases', 'financials')
                         THEN TRY_CAST(split_part(p.record, '|', 1) AS BIGINT) END,
                    pi.company_id, pr.company_id, pf.company_id) AS company_id,
        CASE p."table" WHEN 'companies' THEN 1 WHEN 'aliases' THEN 2 WHEN 'ipos' THEN 3 WHEN 'funding_rounds' THEN 4
            WHEN 'round_investors' THEN 4 WHEN 'financials' THEN 5 WHEN 'filings' THEN 6 END AS group_order,
        p.source, p.basis, p.record,
        list_filter(string_split(p.fields, ';'), lambda f: f <> '*' AND NOT starts_with(f, 'repeated-rows:')) AS fields,
        string_split(coalesce(p.places, ''), ';') AS places
    FROM provenance AS p
    LEFT JOIN main.ipos AS pi ON p."table" = 'ipos' AND pi.id = TRY_CAST(p.record AS BIGINT)
    LEFT JOIN funding_rounds AS pr ON p."table" IN ('funding_rounds', 'round_investors')
        AND pr.id = TRY_CAST(split_part(p.record, '|', 1) AS BIGINT)
    LEFT JOIN filings AS pf ON p."table" = 'filings' AND pf.id = TRY_CAST(p.record AS BIGINT)
    WHERE p."table" IN ('companies', 'aliases', 'ipos', 'funding_rounds', 'round_investors', 'financials', 'filings')
), provenance_places AS (
    -- each place once, in the order of the records (by key) and of the places each record lists
    SELECT company_id, group_order, source, basis, place,
        min(rank) AS first
    FROM (
        SELECT company_id, group_order, source, basis, unnest(places) AS place,
            row_number() OVER (PARTITION BY company_id, group_order, source, basis
                               ORDER BY TRY_CAST(split_part(record, '|', 1) AS BIGINT), record) * 1000
                + generate_subscripts(places, 1) AS rank
        FROM provenance_rows
    )
    WHERE place NOT IN ('', '+')
    GROUP BY ALL
), source_lists AS (
    SELECT r.company_id, list({
        'group': ['company', 'also_known_as', 'ipos', 'funding', 'financials', 'filings'][r.group_order],
        'source': r.source, 'basis': r.basis, 'fields': r.fields, 'records': r.records,
        'places': coalesce(pl.places, []), 'more_places': r.more OR coalesce(pl.count, 0) > 5}
        ORDER BY r.group_order, r.source, r.basis) AS sources
    FROM (
        SELECT company_id, group_order, source, basis,
            list_sort(list_distinct(flatten(list(fields)))) AS fields,
            count(DISTINCT record)::INTEGER AS records,
            bool_or(list_contains(places, '+')) AS more
        FROM provenance_rows
        WHERE company_id IS NOT NULL
        GROUP BY ALL
    ) AS r
    LEFT JOIN (
        SELECT company_id, group_order, source, basis, list_slice(list(place ORDER BY first), 1, 5) AS places,
            count(*) AS count
        FROM provenance_places
        GROUP BY ALL
    ) AS pl USING (company_id, group_order, source, basis)
    GROUP BY r.company_id

)
SELECT c.id, coalesce(i.ipos, []) AS ipos, coalesce(al.also_known_as, []) AS also_known_as,
    coalesce(so.sources, []) AS sources
FROM companies AS c
LEFT JOIN ipos AS i ON i.company_id = c.id
LEFT JOIN alias_lists AS al ON al.company_id = c.id
LEFT JOIN source_lists AS so ON so.company_id = c.id
WHERE c.id >= $_first AND c.id <= $_last;

CREATE OR REPLACE TEMP TABLE company_profile_figures AS
SELECT c.id, cf.total_raised_usd, cf.last_round_stage, cf.last_round_date, cf.other_transactions_usd,
    cf.last_round_post_money_usd, rv.revenue_usd, rv.revenue_growth, sp.latest_valuation_usd, sp.latest_month
FROM companies AS c
LEFT JOIN company_funding AS cf ON cf.company_id = c.id
LEFT JOIN company_revenue AS rv ON rv.company_id = c.id
LEFT JOIN company_secondary AS sp ON sp.company_id = c.id
WHERE c.id >= $_first AND c.id <= $_last;

SELECT
    c.id, c.slug, c.name, c.sector, s.name AS sector_name, c.country, n.name AS country_name, c.status,
    c.founded_year, c.headquarters_city, c.website, c.description, c.valuation_usd, c.valuation_date,
    c.valuation_basis,
    {'ticker': c.ticker, 'exchange': c.exchange, 'exchange_name': e.name, 'cik': c.cik,
     'edgar_url': CASE WHEN c.cik <> 0
                       THEN printf('https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=%010d', c.cik) END,
     'listing_date': c.listing_date, 'listing_kind': c.listing_kind} AS listing,
    CASE WHEN c.acquirer <> '' THEN
        {'acquirer': c.acquirer, 'acquired_date': c.acquired_date, 'price_usd': c.acquisition_price_usd} END
        AS acquisition,
    pf.financials,
    {'total_raised_usd': fg.total_raised_usd, 'rounds_count': pf.rounds_count,
     'investors_count': pf.investors_count, 'last_round_stage': fg.last_round_stage,
     'last_round_date': fg.last_round_date, 'rounds': pf.rounds,
     'other_transactions_usd': fg.other_transactions_usd} AS funding,
    pr.ipos,
    {'valuation_to_revenue': round(CASE WHEN fg.revenue_usd > 0 THEN st.valuation_usd / fg.revenue_usd END, 2),
     'revenue_growth': round(fg.revenue_growth, 4),
     'sector_rank': st.sector_rank::INTEGER,
     'sector_companies': st.sector_companies::INTEGER,
     'sector_percentile': round(st.sector_percentile, 4),
     'months_since_last_round': CASE WHEN fg.last_round_date IS NOT NULL
                                     THEN date_diff('month', fg.last_round_date, $as_of::DATE) END,
     'latest_secondary_valuation_usd': fg.latest_valuation_usd,
     'latest_secondary_month': strftime(fg.latest_month, '%Y-%m'),
     'secondary_premium_to_last_round':
        round(CASE WHEN fg.last_round_post_money_usd > 0 AND fg.latest_valuation_usd IS NOT NULL
                   THEN fg.latest_valuation_usd / fg.last_round_post_money_usd - 1 END, 4),
     'methodology': $methodology} AS analysis,
    cv.valuation_is_current,
    c.valuation_currency_converted_from,
    CASE WHEN c.unicorn_date IS NOT NULL THEN {'date_joined': c.unicorn_date, 'source': c.unicorn_date_source} END
        AS unicorn,
    pr.also_known_as,
    pr.sources
FROM companies AS c
JOIN sectors AS s ON s.slug = c.sector
JOIN countries AS n ON n.code = c.country
LEFT JOIN exchanges AS e ON e.slug = c.exchange
JOIN company_valuation AS cv ON cv.company_id = c.id
JOIN company_sector_stats AS st ON st.id = c.id
JOIN company_profile_funding AS pf ON pf.id = c.id
JOIN company_profile_records AS pr ON pr.id = c.id
JOIN company_profile_figures AS fg ON fg.id = c.id
