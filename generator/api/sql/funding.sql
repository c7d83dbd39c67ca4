-- One row per funding round, with its lead investors. In four statements (queries.staged), each join on its own:
-- a round's lead investors aggregated by round alone (a group of every column of the round held more than 128 MB of
-- DuckDB's memory at 300k companies), sorted by name, then id (list_sort over structs of those first: an ordered
-- aggregate, list(... ORDER BY ...), of these structs needed more than 128 MB); the rounds with their kind and their
-- count of investors; then the leads; then the company. In one plan every join's hash table was held at once: at
-- 300k companies more than 64 MB, staged less.
CREATE OR REPLACE TEMP TABLE funding_leads AS
SELECT
    ri.round_id,
    list_transform(list_sort(list({'name': i.name, 'id': i.id, 'slug': i.slug})),
                   lambda l: {'id': l.id, 'slug': l.slug, 'name': l.name,
                              'url': '/api/investors/' || l.slug || '.json'}) AS lead_investors
FROM round_investors AS ri
LEFT JOIN investors AS i ON i.id = ri.investor_id
WHERE ri.is_lead
GROUP BY ri.round_id;

CREATE OR REPLACE TEMP TABLE funding_base AS
SELECT r.id, r.company_id, r.stage, r.announced_date, r.amount_usd, r.post_money_valuation_usd, r.basis,
       coalesce(b.investors_count, 0)::INTEGER AS investors_count, k."transaction", r.currency_converted_from
FROM funding_rounds AS r
JOIN round_kinds AS k ON k.id = r.id
LEFT JOIN (SELECT round_id, count(investor_id) AS investors_count FROM round_investors GROUP BY round_id) AS b
    ON b.round_id = r.id;

CREATE OR REPLACE TEMP TABLE funding_led AS
SELECT r.*, coalesce(l.lead_investors, []) AS lead_investors
FROM funding_base AS r
LEFT JOIN funding_leads AS l ON l.round_id = r.id;

SELECT
    r.id,
    c.ref AS company,
    r.stage,
    r.announced_date,
    year(r.announced_date) AS year,
    r.amount_usd,
    r.post_money_valuation_usd,
    r.basis,
    r.lead_investors,
    r.investors_count,
    r."transaction",
    r.currency_converted_from
FROM funding_led AS r
JOIN company_refs AS c ON c.id = r.company_id
