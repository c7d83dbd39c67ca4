-- Financial years per company, oldest first, with margins and growth derived.
SELECT
    company_id,
    fiscal_year,
    revenue_usd,
    net_income_usd,
    operating_income_usd,
    gross_margin,
    round(CASE WHEN revenue_usd > 0 THEN net_income_usd / revenue_usd END, 4) AS net_margin,
    round(CASE WHEN lag(revenue_usd) OVER w > 0 AND lag(fiscal_year) OVER w = fiscal_year - 1
               THEN revenue_usd / lag(revenue_usd) OVER w - 1 END, 4) AS revenue_growth,
    employees,
    basis,
    currency_converted_from
FROM financials
WINDOW w AS (PARTITION BY company_id ORDER BY fiscal_year)
ORDER BY company_id, fiscal_year
