-- IPO calendar: one row per event derived from the IPO records. Quiet-period end (25 days) and lock-up expiry
-- (180 days) follow US convention from the listing date and are marked estimated. $as_of splits upcoming/past;
-- events older than 24 months before it are left to /api/ipos. The events are staged in a table first
-- (queries.staged): their dates' filter over the UNION made DuckDB underestimate them and hash them, not the IPOs,
-- in the join; at 300k companies that did not fit 64 MB of memory, staged it does.
CREATE OR REPLACE TEMP TABLE calendar_events AS
WITH events AS (
    SELECT id AS ipo_id, 'filing' AS type, filed_date AS date, false AS estimated,
           'Registration statement filed' AS description FROM ipos WHERE filed_date IS NOT NULL
    UNION ALL
    SELECT id, 'expected-listing', expected_date, true, 'Expected pricing/listing date'
    FROM ipos WHERE expected_date IS NOT NULL AND status IN ('upcoming', 'filed', 'pipeline')
    UNION ALL
    SELECT id, 'pricing', priced_date, false, 'IPO priced' FROM ipos WHERE priced_date IS NOT NULL
    UNION ALL
    SELECT id, 'listing', listing_date, false, 'First trading day' FROM ipos WHERE listing_date IS NOT NULL
    UNION ALL
    SELECT id, 'quiet-period-end', (listing_date + INTERVAL 25 DAY)::DATE, true,
           'Research quiet period ends (25 days after listing, by convention)'
    FROM ipos WHERE listing_date IS NOT NULL AND listing_kind <> 'spac-merger'
    UNION ALL
    SELECT id, 'lockup-expiry', (listing_date + INTERVAL 180 DAY)::DATE, true,
           'Lock-up expiry (180 days after listing, by convention)'
    FROM ipos WHERE listing_date IS NOT NULL
    UNION ALL
    SELECT id, 'withdrawal', withdrawn_date, false, 'IPO withdrawn' FROM ipos WHERE withdrawn_date IS NOT NULL
    UNION ALL
    SELECT id, 'postponement', postponed_date, false, 'IPO postponed' FROM ipos WHERE postponed_date IS NOT NULL
)
SELECT * FROM events WHERE date >= ($as_of::DATE - INTERVAL 24 MONTH);

SELECT
    'ipo-' || e.ipo_id || '-' || e.type AS id,
    e.type,
    e.date,
    strftime(e.date, '%Y-%m') AS month,
    CASE WHEN e.date >= $as_of::DATE THEN 'upcoming' ELSE 'past' END AS "when",
    e.estimated,
    e.ipo_id,
    i.status AS ipo_status,
    c.ref AS company,
    i.exchange,
    i.ticker,
    e.description
FROM calendar_events AS e
JOIN ipos AS i ON i.id = e.ipo_id
JOIN company_refs AS c ON c.id = i.company_id
