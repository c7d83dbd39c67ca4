"""Fetchers of the public sources (SEC EDGAR with its XBRL financial facts, the Nasdaq IPO calendar and stock
screener) into a raw folder: ``python -m generator fetch SOURCE... --into RAW``.

``client`` is the one polite client (a User-Agent that names the operator, at most 10 requests a second, retries
with backoff that honour ``Retry-After``, gzip, conditional requests), which ``body`` keeps within limits (a body's
size, compressed and not; a deadline per request); ``sources`` says what each source's URLs are and which a run
asks for; ``verify`` checks a download (by the importer that will read it, or its documented shape); ``store``
keeps the raw folder: one dated folder per run with its fetch manifest, staged beside the others and renamed into
place only when every download of the run is complete and verified; ``progress`` reports; ``run`` ties them
together. The raw folder is what ``python -m generator import auto RAW`` reads (the newest download of each file).

May import ``generator.importers`` only.
"""
