-- Shared views over the loaded tables, created once before any route's SQL runs.
-- company_refs: the reference to a company that every row about a company carries (CompanyRef).
CREATE VIEW company_refs AS
SELECT id, {'id': id, 'slug': slug, 'name': name, 'sector': sector, 'country': country,
            'url': '/api/companies/' || slug} AS ref
FROM companies;
