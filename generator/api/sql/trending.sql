-- Trending lists, one row per entry:
--   gainers / decliners: change of the secondary implied valuation over the six months ending at the latest month
--   with a mark on or before $as_of. Marks are observed transactions (tender offers, secondary sales). The start is
--   the latest mark on or before the window's first month (else the first mark in the window), the end the latest
--   mark in the window; a company needs a mark inside the window and two different marks in all. Only marks dated
--   on or before each end point are used, so no figure looks ahead.
--   ipo-ready: private companies with a current valuation, scored 0-100 from five listed components; an unknown
--   input scores 0 points and says so (known = false).
-- In four statements: the private companies' scale and revenue, then their other inputs, then the entries into a
-- table, then their companies' references joined (in one plan the joins of the inputs, the windows and the last join
-- held more than 192 MB of DuckDB's memory at 300k companies; the five inputs' joins in one, more than 64 MB).
CREATE OR REPLACE TEMP TABLE trending_private AS
SELECT c.id, v.current_valuation_usd AS valuation_usd, f.revenue_usd, f.revenue_growth
FROM companies AS c
JOIN company_valuation AS v ON v.company_id = c.id
LEFT JOIN company_revenue AS f ON f.company_id = c.id
WHERE c.status = 'private' AND v.current_valuation_usd IS NOT NULL;

CREATE OR REPLACE TEMP TABLE trending_inputs AS
SELECT p.id, p.valuation_usd, p.revenue_usd, p.revenue_growth,
       CASE WHEN r.last_round_post_money_usd > 0
            THEN s.latest_valuation_usd / r.last_round_post_money_usd - 1 END AS premium,
       li.ipo_status
FROM trending_private AS p
LEFT JOIN company_funding AS r ON r.company_id = p.id
LEFT JOIN company_secondary AS s ON s.company_id = p.id
LEFT JOIN company_ipo_status AS li ON li.company_id = p.id;

CREATE OR REPLACE TEMP TABLE trending_entries AS
WITH bounds AS (
    SELECT max(month) AS window_end, (max(month) - INTERVAL 5 MONTH)::DATE AS window_start
    FROM secondary_prices WHERE month <= $as_of::DATE
), marks AS (
    SELECT p.company_id, p.month, p.implied_valuation_usd, b.window_start, b.window_end
    FROM secondary_prices AS p, bounds AS b
    WHERE p.month <= b.window_end
), moves AS (
    SELECT company_id, min(window_start) AS window_start, max(window_end) AS window_end,
           coalesce(arg_max(implied_valuation_usd, month) FILTER (WHERE month <= window_start),
                    arg_min(implied_valuation_usd, month) FILTER (WHERE month > window_start)) AS start_valuation_usd,
           coalesce(max(month) FILTER (WHERE month <= window_start),
                    min(month) FILTER (WHERE month > window_start)) AS start_month,
           arg_max(implied_valuation_usd, month) AS end_valuation_usd,
           max(month) AS end_month
    FROM marks GROUP BY company_id
    HAVING max(month) >= min(window_start) AND count(*) >= 2
), movers AS (
    SELECT *, round(end_valuation_usd / start_valuation_usd - 1, 4) AS change
    FROM moves WHERE start_valuation_usd > 0 AND end_month > start_month
), scored AS (
    SELECT id, [
        {'name': 'scale', 'value': valuation_usd::DOUBLE,
         'points': round(25 * greatest(0, least(1, (log10(valuation_usd) - 8.5) / 2.5)), 2),
         'max_points': 25.0::DOUBLE,
         'note': 'current valuation_usd; 0 points at $316M or less, 25 at $100B or more, log scale',
         'known': true},
        {'name': 'revenue', 'value': revenue_usd::DOUBLE,
         'points': CASE WHEN revenue_usd IS NULL THEN 0.0
                        ELSE round(25 * greatest(0, least(1, (log10(greatest(revenue_usd, 1)) - 7.5) / 2.5)), 2) END,
         'max_points': 25.0::DOUBLE,
         'note': 'latest fiscal-year revenue_usd; 0 at $32M or less, 25 at $10B or more, log scale'
                 || CASE WHEN revenue_usd IS NULL THEN '; unknown: 0 points' ELSE '' END,
         'known': revenue_usd IS NOT NULL},
        {'name': 'growth', 'value': round(revenue_growth, 4),
         'points': CASE WHEN revenue_growth IS NULL THEN 0.0
                        ELSE round(15 * greatest(0, least(1, revenue_growth / 0.5)), 2) END,
         'max_points': 15.0::DOUBLE,
         'note': 'latest revenue growth (ratio); 0 at 0 or less, 15 at 50 % or more'
                 || CASE WHEN revenue_growth IS NULL THEN '; unknown: 0 points' ELSE '' END,
         'known': revenue_growth IS NOT NULL},
        {'name': 'secondary_momentum', 'value': round(premium, 4),
         'points': CASE WHEN premium IS NULL THEN 0.0
                        ELSE round(15 * greatest(0, least(1, (premium + 0.25) / 0.75)), 2) END,
         'max_points': 15.0::DOUBLE,
         'note': 'latest observed secondary implied valuation / last round post-money - 1; 0 at -25 % or less, '
                 || '15 at +50 %' || CASE WHEN premium IS NULL THEN '; unknown: 0 points' ELSE '' END,
         'known': premium IS NOT NULL},
        {'name': 'ipo_pipeline', 'value': NULL::DOUBLE,
         'points': CASE ipo_status WHEN 'filed' THEN 20.0 WHEN 'upcoming' THEN 20.0 WHEN 'pipeline' THEN 12.0
                        WHEN 'postponed' THEN 8.0 ELSE 0.0 END,
         'max_points': 20.0::DOUBLE,
         'note': 'latest IPO record: filed or upcoming 20, pipeline 12, postponed 8, none or withdrawn 0; status: '
                 || coalesce(ipo_status, 'none'),
         'known': true}
    ] AS components
    FROM trending_inputs
), ready AS (  -- ranked on (score, id) alone, the components joined after: a window over the rows with their
    SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rank  -- components held more than 128 MB
    FROM (SELECT id, round(list_sum(list_transform(components, lambda c: c.points)), 2) AS score FROM scored)
), entries AS (
    SELECT 'gainers' AS kind, row_number() OVER (ORDER BY change DESC, company_id) AS rank, company_id,
           window_start, window_end, start_valuation_usd, end_valuation_usd, change, NULL::DOUBLE AS score,
           [] AS components
    FROM movers WHERE change > 0
    UNION ALL
    SELECT 'decliners', row_number() OVER (ORDER BY change ASC, company_id), company_id,
           window_start, window_end, start_valuation_usd, end_valuation_usd, change, NULL, []
    FROM movers WHERE change < 0
    UNION ALL
    SELECT 'ipo-ready', r.rank, r.id, NULL, NULL, NULL, NULL, NULL, r.score, s.components
    FROM ready AS r JOIN scored AS s ON s.id = r.id
)
SELECT * FROM entries;

SELECT
    e.kind || ':' || lpad(e.rank::VARCHAR, 8, '0') AS entry_key,
    e.kind,
    e.rank::INTEGER AS rank,
    c.ref AS company,
    strftime(e.window_start, '%Y-%m') AS window_start,
    strftime(e.window_end, '%Y-%m') AS window_end,
    e.start_valuation_usd,
    e.end_valuation_usd,
    e.change,
    e.score,
    e.components
FROM trending_entries AS e
JOIN company_refs AS c ON c.id = e.company_id
