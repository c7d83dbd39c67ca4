-- One row per company: the fields of a /api/companies listing row (CompanyListItem) plus filter columns, as the
-- view company_rows (views.sql) makes them for every listing of companies.
SELECT * FROM company_rows
