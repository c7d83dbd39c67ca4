-- One row per SEC filing; EDGAR links are built from public identifiers (CIK, accession number) only.
SELECT
    f.id,
    f.form,
    replace(lower(f.form), '/', '-') AS form_slug,
    f.filed_date,
    year(f.filed_date) AS year,
    (SELECT ref FROM company_refs AS cr WHERE cr.id = c.id) AS company,
    c.cik,
    f.accession_number,
    f.description,
    CASE
        WHEN f.accession_number IS NOT NULL AND c.cik IS NOT NULL THEN
            'https://www.sec.gov/Archives/edgar/data/' || c.cik || '/' || replace(f.accession_number, '-', '') || '/'
        WHEN c.cik IS NOT NULL THEN
            'https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=' || lpad(c.cik::VARCHAR, 10, '0')
    END AS edgar_url
FROM filings AS f
JOIN companies AS c ON c.id = f.company_id
