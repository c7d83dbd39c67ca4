"""Published limits of the static hosts users deploy to, and which of them an output fits.

Figures as the hosts publish them (and, for Netlify, as users report them): a site over a limit is refused or,
for Netlify, slows to a crawl. They change; the build's closing summary says which ones this output meets.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1024**3


@dataclass(frozen=True)
class Host:
    name: str
    max_files: int | None
    max_bytes: int | None
    basis: str

    def fits(self, files: int, size: int) -> bool:
        within_files = self.max_files is None or files <= self.max_files
        return within_files and (self.max_bytes is None or size <= self.max_bytes)

    @property
    def limit(self) -> str:
        parts = [f"{self.max_files:,} files" if self.max_files else "", f"{self.max_bytes // GIB} GB" if self.max_bytes
                 else ""]
        return " and ".join(p for p in parts if p)


HOSTS: tuple[Host, ...] = (
    Host("Vercel", 15_000, None, "files per deployment"),
    Host("Cloudflare Pages (free)", 20_000, None, "files per site"),
    Host("Cloudflare Pages (paid)", 100_000, None, "files per site"),
    Host("GitHub Pages", None, 1 * GIB, "published site size"),
    Host("Netlify (practical)", 30_000, None, "users report slow uploads past ~12k and 502 errors from 30k files"),
)


def fit_summary(files: int, size: int) -> str:
    """One line: the hosts whose published limits this output meets, and those it exceeds."""
    fits = [h for h in HOSTS if h.fits(files, size)]
    over = [h for h in HOSTS if not h.fits(files, size)]
    line = "fits: " + (", ".join(f"{h.name} ({h.limit})" for h in fits) or "none of the listed hosts")
    if over:
        line += "; over the limit of: " + ", ".join(f"{h.name} ({h.limit})" for h in over)
        line += " (object storage such as S3 has no file limit)"
    return line
