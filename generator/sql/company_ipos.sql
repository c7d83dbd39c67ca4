-- IPO records per company, newest status date first.
SELECT
    company_id,
    id,
    status,
    CASE status
        WHEN 'pipeline' THEN announced_date WHEN 'filed' THEN filed_date WHEN 'upcoming' THEN expected_date
        WHEN 'listed' THEN listing_date WHEN 'withdrawn' THEN withdrawn_date WHEN 'postponed' THEN postponed_date
    END AS status_date,
    exchange,
    ticker,
    listing_kind,
    filed_date,
    expected_date,
    listing_date,
    offer_price_cents,
    proceeds_usd,
    valuation_at_ipo_usd,
    round(CASE WHEN offer_price_cents > 0 THEN first_day_close_cents / offer_price_cents - 1 END, 4)
        AS first_day_return
FROM ipos
ORDER BY company_id, status_date DESC, id DESC
