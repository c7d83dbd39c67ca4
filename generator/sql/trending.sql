-- Trending lists, one row per entry:
--   gainers / decliners: change of the secondary implied valuation from the first to the last monthly point in
--   the six months ending at the latest month on or before $as_of (companies with two or more points);
--   ipo-ready: private companies with a valuation, scored 0-100 from five listed components.
WITH bounds AS (
    SELECT max(month) AS window_end, (max(month) - INTERVAL 5 MONTH)::DATE AS window_start
    FROM secondary_prices WHERE month <= $as_of::DATE
), points AS (
    SELECT p.company_id, p.month, p.implied_valuation_usd, b.window_start, b.window_end
    FROM secondary_prices AS p, bounds AS b
    WHERE p.month BETWEEN b.window_start AND b.window_end
), moves AS (
    SELECT company_id, min(window_start) AS window_start, max(window_end) AS window_end,
           arg_min(implied_valuation_usd, month) AS start_valuation_usd,
           arg_max(implied_valuation_usd, month) AS end_valuation_usd
    FROM points GROUP BY company_id HAVING count(*) >= 2
), movers AS (
    SELECT *, round(end_valuation_usd / start_valuation_usd - 1, 4) AS change FROM moves WHERE start_valuation_usd > 0
), inputs AS (
    SELECT c.id, c.valuation_usd, f.revenue_usd, f.revenue_growth,
           CASE WHEN r.last_round_post_money_usd > 0
                THEN s.latest_valuation_usd / r.last_round_post_money_usd - 1 END AS premium,
           li.ipo_status
    FROM companies AS c
    LEFT JOIN company_revenue AS f ON f.company_id = c.id
    LEFT JOIN company_funding AS r ON r.company_id = c.id
    LEFT JOIN company_secondary AS s ON s.company_id = c.id
    LEFT JOIN company_ipo_status AS li ON li.company_id = c.id
    WHERE c.status = 'private' AND c.valuation_usd IS NOT NULL
), scored AS (
    SELECT id, [
        {'name': 'scale', 'value': valuation_usd::DOUBLE, 'max_points': 25.0,
         'points': round(25 * greatest(0, least(1, (log10(valuation_usd) - 8.5) / 2.5)), 2),
         'note': 'valuation_usd; 0 points at $316M or less, 25 at $100B or more, log scale'},
        {'name': 'revenue', 'value': revenue_usd::DOUBLE, 'max_points': 25.0,
         'points': round(coalesce(25 * greatest(0, least(1, (log10(greatest(revenue_usd, 1)) - 7.5) / 2.5)), 0), 2),
         'note': 'latest fiscal-year revenue_usd; 0 at $32M or less or unknown, 25 at $10B or more, log scale'},
        {'name': 'growth', 'value': round(revenue_growth, 4), 'max_points': 15.0,
         'points': round(coalesce(15 * greatest(0, least(1, revenue_growth / 0.5)), 0), 2),
         'note': 'latest revenue growth (ratio); 0 at 0 or unknown, 15 at 50 % or more'},
        {'name': 'secondary_momentum', 'value': round(premium, 4), 'max_points': 15.0,
         'points': round(coalesce(15 * greatest(0, least(1, (premium + 0.25) / 0.75)), 0), 2),
         'note': 'latest secondary implied valuation / last round post-money - 1; 0 at -25 % or unknown, 15 at +50 %'},
        {'name': 'ipo_pipeline', 'value': NULL::DOUBLE, 'max_points': 20.0,
         'points': CASE ipo_status WHEN 'filed' THEN 20.0 WHEN 'upcoming' THEN 20.0 WHEN 'pipeline' THEN 12.0
                                   WHEN 'postponed' THEN 8.0 ELSE 0.0 END,
         'note': 'latest IPO record: filed or upcoming 20, pipeline 12, postponed 8, none or withdrawn 0; status: '
                 || coalesce(ipo_status, 'none')}
    ] AS components
    FROM inputs
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
    SELECT 'ipo-ready', row_number() OVER (ORDER BY score DESC, id), id, NULL, NULL, NULL, NULL, NULL, score, components
    FROM (SELECT id, components, round(list_sum(list_transform(components, lambda c: c.points)), 2) AS score FROM scored)
)
SELECT
    e.kind || ':' || lpad(e.rank::VARCHAR, 8, '0') AS entry_key,
    e.kind,
    e.rank::INTEGER AS rank,
    (SELECT ref FROM company_refs AS cr WHERE cr.id = c.id) AS company,
    strftime(e.window_start, '%Y-%m') AS window_start,
    strftime(e.window_end, '%Y-%m') AS window_end,
    e.start_valuation_usd,
    e.end_valuation_usd,
    e.change,
    e.score,
    e.components
FROM entries AS e
JOIN companies AS c ON c.id = e.company_id
