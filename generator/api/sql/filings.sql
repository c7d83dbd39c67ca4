-- One row per SEC filing; EDGAR links are built from public identifiers (CIK, accession number) only. A filing made
-- under another CIK (a predecessor's) is linked under that filer's CIK (filings.filer_cik).
SELECT
    f.id,
    f.form,
    replace(lower(f.form), '/', '-') AS form_slug,
    f.filed_date,
    year(f.filed_date) AS year,
    cr.ref AS company,
    c.cik,
    f.accession_number,
    f.description,
    CASE
        WHEN f.accession_number IS NOT NULL AND coalesce(f.filer_cik, c.cik) IS NOT NULL THEN
            'https://www.sec.gov/Archives/edgar/data/' || coalesce(f.filer_cik, c.cik) || '/'
            || replace(f.accession_number, '-', '') || '/'
        WHEN coalesce(f.filer_cik, c.cik) IS NOT NULL THEN
            'https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK='
            || lpad(coalesce(f.filer_cik, c.cik)::VARCHAR, 10, '0')
    END AS edgar_url,
    CASE
        WHEN coalesce(f.filer_cik, c.cik) IS NULL THEN NULL
        WHEN f.accession_number IS NOT NULL THEN 'filing'
        ELSE 'filer-page'
    END AS edgar_url_kind,
    coalesce(f.filer_cik, c.cik) AS filer_cik
FROM filings AS f
JOIN companies AS c ON c.id = f.company_id
LEFT JOIN company_refs AS cr ON cr.id = c.id
