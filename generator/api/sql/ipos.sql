-- One row per IPO record, with the date that goes with its status and the company.
SELECT
    i.id,
    i.status,
    CASE i.status
        WHEN 'pipeline' THEN i.announced_date WHEN 'filed' THEN i.filed_date WHEN 'upcoming' THEN i.expected_date
        WHEN 'listed' THEN i.listing_date WHEN 'withdrawn' THEN i.withdrawn_date WHEN 'postponed' THEN i.postponed_date
    END AS status_date,
    year(status_date) AS year,
    c.ref AS company,
    i.ticker,
    i.exchange,
    e.name AS exchange_name,
    i.listing_kind,
    i.price_range_low_cents,
    i.price_range_high_cents,
    i.offer_price_cents,
    i.shares_offered,
    i.proceeds_usd,
    i.valuation_at_ipo_usd,
    i.first_day_close_cents,
    round(CASE WHEN i.offer_price_cents > 0 THEN i.first_day_close_cents / i.offer_price_cents - 1 END, 4)
        AS first_day_return,
    i.announced_date,
    i.filed_date,
    i.expected_date,
    i.priced_date,
    i.listing_date,
    i.withdrawn_date,
    i.postponed_date,
    i.basis
FROM ipos AS i
JOIN company_refs AS c ON c.id = i.company_id
LEFT JOIN exchanges AS e ON e.slug = i.exchange
