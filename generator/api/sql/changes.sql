-- One row per change event within the window ($window_days up to the dataset's $as_of date): the dated facts of
-- the dataset (an IPO filed, priced, listed, postponed or withdrawn; a round announced; a filing; an acquisition)
-- and the differences recorded in changes.csv (a company added, renamed, removed, delisted or closed; a valuation
-- changed). An event's id is 'evt-' and 16 hex digits of sha256 over its parts joined by '|'
-- (generator.dataset.history.event_id writes the same recipe for the recorded ones). The window's events are staged
-- in a table first (queries.staged), as in calendar.sql: at 300k companies they then fit 64 MB of memory.
CREATE OR REPLACE TEMP TABLE change_events AS
WITH facts AS (
    SELECT 'ipo-' || s.status AS type, 'ipo' AS entity_kind, i.id::VARCHAR AS entity_id, i.company_id,
           s.date,
           CASE s.status
               WHEN 'filed' THEN ' filed for an IPO'
                   || CASE WHEN i.exchange IS NOT NULL THEN ' on ' || x.name ELSE '' END
                   || CASE WHEN i.price_range_low_cents IS NOT NULL AND i.price_range_high_cents IS NOT NULL
                           THEN format(', at {:.2f} to {:.2f} USD a share', i.price_range_low_cents / 100,
                                       i.price_range_high_cents / 100) ELSE '' END
               WHEN 'priced' THEN ' priced its IPO'
                   || CASE WHEN i.offer_price_cents IS NOT NULL
                           THEN format(' at {:.2f} USD a share', i.offer_price_cents / 100) ELSE '' END
                   || CASE WHEN i.proceeds_usd IS NOT NULL
                           THEN format(', raising {:,} USD', i.proceeds_usd) ELSE '' END
               WHEN 'listed' THEN ' listed'
                   || CASE WHEN i.exchange IS NOT NULL THEN ' on ' || x.name ELSE '' END
                   || CASE WHEN i.ticker IS NOT NULL THEN ' as ' || i.ticker ELSE '' END
                   || CASE i.listing_kind WHEN 'direct-listing' THEN ' (a direct listing)'
                                          WHEN 'spac-merger' THEN ' (a SPAC merger)' ELSE '' END
               WHEN 'withdrawn' THEN ' withdrew its IPO'
               WHEN 'postponed' THEN ' postponed its IPO'
           END AS said
    FROM ipos AS i
    LEFT JOIN exchanges AS x ON x.slug = i.exchange
    CROSS JOIN LATERAL (VALUES ('filed', i.filed_date), ('priced', i.priced_date), ('listed', i.listing_date),
                               ('withdrawn', i.withdrawn_date), ('postponed', i.postponed_date)) AS s(status, date)
    WHERE s.date IS NOT NULL
    UNION ALL
    SELECT 'round-announced', 'round', r.id::VARCHAR, r.company_id, r.announced_date,
           ' announced a ' || CASE WHEN r.stage LIKE 'series-%' THEN 'Series ' || upper(r.stage[8:])
                                   ELSE replace(r.stage, '-', ' ') END || ' round'
           || CASE WHEN r.amount_usd IS NOT NULL THEN format(' of {:,} USD', r.amount_usd) ELSE '' END
           || CASE WHEN r.post_money_valuation_usd IS NOT NULL
                   THEN format(' at a post-money valuation of {:,} USD', r.post_money_valuation_usd) ELSE '' END
    FROM funding_rounds AS r
    UNION ALL
    SELECT 'filing-added', 'filing', f.id::VARCHAR, f.company_id, f.filed_date,
           ' filed Form ' || f.form || ' with the SEC'
    FROM filings AS f
    UNION ALL
    SELECT 'company-acquired', 'company', c.id::VARCHAR, c.id, c.acquired_date,
           ' was acquired'
           || CASE WHEN c.acquirer IS NOT NULL THEN ' by ' || c.acquirer ELSE '' END
           || CASE WHEN c.acquisition_price_usd IS NOT NULL
                   THEN format(' for {:,} USD', c.acquisition_price_usd) ELSE '' END
    FROM companies AS c
    WHERE c.acquired_date IS NOT NULL
),
dated AS (
    SELECT 'evt-' || left(sha256(concat_ws('|', f.type, f.entity_kind, f.entity_id, f.date::VARCHAR)), 16) AS id,
           f.date, f.type, f.entity_kind, f.entity_id, c.id AS company_id, c.slug AS company_slug,
           c.name AS company_name, c.name || f.said AS summary, NULL::VARCHAR AS changes, NULL::DATE AS snapshot
    FROM facts AS f
    JOIN companies AS c ON c.id = f.company_id
),
recorded AS (
    SELECT id, date, type, entity_kind, entity_id, company_id, company_slug, company_name, summary, changes, snapshot
    FROM changes
),
events AS (
    SELECT * FROM dated
    UNION ALL
    SELECT * FROM recorded WHERE id NOT IN (SELECT id FROM dated)
)
SELECT * FROM events
WHERE date > $as_of::DATE - to_days($window_days::INTEGER) AND date <= $as_of::DATE;

SELECT
    e.id,
    e.date,
    e.type,
    {'kind': e.entity_kind, 'id': e.entity_id, 'url': cr.ref.url} AS entity,
    CASE WHEN e.company_id IS NOT NULL THEN
        {'id': e.company_id, 'slug': coalesce(cr.ref.slug, e.company_slug), 'name': coalesce(cr.ref.name, e.company_name),
         'url': cr.ref.url}
    END AS company,
    e.summary,
    coalesce(e.changes, '[]') AS changes,
    e.snapshot
FROM change_events AS e
LEFT JOIN company_refs AS cr ON cr.id = e.company_id
