-- One row per sector (see industry_rows in views.sql).
SELECT * FROM industry_rows
