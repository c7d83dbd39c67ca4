"""The front door for hosts that run no code (S3, GitHub Pages, ``python -m http.server``, a copied folder): the
same answers as ``serve`` and the edge functions, resolved in the client over the path-style files.

    from generator.frontdoor.client import Client

    api = Client("https://example.org")
    answer = api.get("/api/companies?sector=Fintech&minValuation=1.5e9")   # status, body, content_type
    rows = api.json("/api/companies?q=open ai")["data"]
    every = list(api.rows("/api/funding?sector=AI&stage=seriesA"))     # every page, following links.next

Only the standard library (``urllib``); the JavaScript twin is ``js/client.mjs``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import quote

from generator.frontdoor.common import Answer
from generator.frontdoor.resolver import Resolver
from generator.frontdoor.space import QUERY_SPACE_FILE


def file_url(path: str) -> str:
    """A file path as a URL path (each segment percent-encoded but ``=`` and ``,``, as the files are named)."""
    return "/".join(quote(segment, safe="=,") for segment in path.split("/"))


class Client:
    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.base, self.timeout = base_url.rstrip("/"), timeout
        self._resolver: Resolver | None = None

    def _read(self, url_path: str) -> tuple[int, bytes, str]:
        try:
            with urllib.request.urlopen(self.base + url_path, timeout=self.timeout) as response:  # noqa: S310
                return response.status, response.read(), response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            return error.code, error.read(), error.headers.get("Content-Type", "")

    def _file(self, path: str) -> bytes | None:
        status, body, _ = self._read(file_url(path))
        return body if status == 200 else None

    @property
    def resolver(self) -> Resolver:
        if self._resolver is None:  # the query space, read once
            found = self._file(QUERY_SPACE_FILE)
            if found is None:
                raise LookupError(f"{self.base}: no {QUERY_SPACE_FILE} (not a build of this API)")
            self._resolver = Resolver(json.loads(found), self._file)
        return self._resolver

    def get(self, path_and_query: str) -> Answer:
        """The answer to a request as a person writes it (``/api/companies?sector=Fintech``)."""
        path, _, query = path_and_query.partition("?")
        answer = self.resolver.resolve(path, query)
        if answer is not None:
            return answer
        status, body, content_type = self._read(path_and_query)  # not the front door's: the file itself
        return Answer(status, body, content_type, path, [path])

    def json(self, path_and_query: str) -> object:
        return json.loads(self.get(path_and_query).body)

    def rows(self, path_and_query: str) -> Iterator[dict]:
        """Every row of a listing, page after page (``links.next``); a problem (400, 404) raises ``LookupError``
        with its detail. A valid query without rows yields nothing."""
        url: str | None = path_and_query
        while url:
            answer = self.get(url)
            body = json.loads(answer.body)
            if answer.status != 200:
                raise LookupError(f"{url}: {answer.status} {body.get('detail', '')}")
            yield from body["data"]
            url = body["links"]["next"]
