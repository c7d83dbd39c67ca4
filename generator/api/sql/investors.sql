-- One row per investor (see investor_rows in views.sql).
SELECT * FROM investor_rows
