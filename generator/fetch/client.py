"""The HTTP client every fetcher uses, polite by construction (the SEC's fair-access rules).

- A User-Agent that names the operator (an e-mail address in it), from an option or the environment; without
  one nothing is requested.
- At most ``rate`` requests in any second (10 at most, the SEC's limit), over one kept-alive connection per site.
- Retries with exponential backoff on connection errors, bodies cut short of their ``Content-Length`` and
  429/5xx answers; a ``Retry-After`` (seconds or an HTTP date) is waited out as asked, and a longer wait than
  ``max_wait`` is a failure rather than a shorter wait.
- ``Accept-Encoding: gzip, deflate``; conditional requests (``If-None-Match``, ``If-Modified-Since``).
- Limits on every request (``body``): a body over ``max_body`` bytes, on the wire or once decompressed, is refused
  as it arrives (never held whole), and a request that has not completed within ``deadline`` seconds is cut off
  (a server dripping one byte every few seconds never trips the per-read ``timeout``). Neither is retried: the
  same URL would answer the same way, and a retried deadline would hold the run ``retries`` times as long.
"""

from __future__ import annotations

import collections
import datetime as dt
import email.utils
import http.client
import os
import re
import time
import urllib.parse
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from generator.fetch import body

USER_AGENT_ENV = ("COMPANY_IPO_API_USER_AGENT", "SEC_USER_AGENT")
"""Environment variables the User-Agent is taken from when no option gives it, in this order."""
MAX_RATE = 10.0
"""Requests a second the SEC allows one client."""
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BODY = 256 * body.MIB
"""The largest body a response may have, compressed or not (the SEC's largest companyfacts documents are about
60 MB, a Financial Statement Data Set quarter 85-125 MB)."""
DEADLINE = 60.0
"""Seconds a request may take from its first byte sent to its body's last byte received."""
_OPERATOR = re.compile(r"\S+@\S+\.\S+")


class FetchError(Exception):
    """One line: what could not be fetched and why."""


class LimitError(FetchError):
    """A response over a limit (its size, its time): the URL, the limit and the option that sets it."""


def user_agent(given: str | None) -> str:
    """The User-Agent to send: ``given``, else the first environment variable set; refuses to go on without one
    that names its operator by an e-mail address, as the SEC asks."""
    value = (given or next((os.environ[name] for name in USER_AGENT_ENV if os.environ.get(name)), "")).strip()
    if not value:
        raise FetchError("no User-Agent: the SEC asks every client to name its operator; pass --user-agent "
                         f"'Company Name admin@example.com' or set {' or '.join(USER_AGENT_ENV)}")
    if not _OPERATOR.search(value) or "\n" in value or "\r" in value:
        raise FetchError(f"User-Agent {value!r} does not name its operator: put a contact e-mail address in it "
                         "(e.g. 'Company Name admin@example.com')")
    return value


class RateLimiter:
    """At most ``rate`` requests in any ``window`` seconds (a fractional rate spaces single requests out)."""

    def __init__(self, rate: float, window: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not 0 < rate <= MAX_RATE:
            raise FetchError(f"rate {rate} requests a second: expected more than 0 and at most {MAX_RATE:g}")
        self.count = max(1, int(rate * window))
        self.span = self.count / rate
        self.clock, self.sleep = clock, sleep
        self.sent: collections.deque[float] = collections.deque(maxlen=self.count)

    def wait(self) -> None:
        now = self.clock()
        if len(self.sent) == self.count and now < self.sent[0] + self.span:
            self.sleep(self.sent[0] + self.span - now)
            now = max(self.clock(), self.sent[0] + self.span)
        self.sent.append(now)


@dataclass(frozen=True)
class Response:
    url: str
    status: int
    body: bytes
    """Decoded (gunzipped) body."""
    etag: str
    last_modified: str
    wire_bytes: int
    """Bytes received on the wire (compressed)."""
    retry_after: str = ""


@dataclass
class Retry:
    url: str
    reason: str
    wait: float


@dataclass
class Client:
    agent: str
    limiter: RateLimiter
    retries: int = 4
    backoff: float = 1.0
    """Seconds before the first retry; doubled for each further one."""
    max_wait: float = 120.0
    timeout: float = 30.0
    """Seconds one read of the socket may wait."""
    max_body: int = MAX_BODY
    deadline: float = DEADLINE
    sleep: Callable[[float], None] = time.sleep
    retried: list[Retry] = field(default_factory=list)
    requests: int = 0
    _connections: dict[tuple[str, str], http.client.HTTPConnection] = field(default_factory=dict)

    def get(self, url: str, etag: str = "", last_modified: str = "", extra: dict[str, str] | None = None) -> Response:
        """GET ``url`` (conditionally when ``etag`` or ``last_modified``; ``extra`` headers over the client's own);
        any status but 429 and 5xx is returned; raises ``FetchError`` when the retries are spent, ``LimitError`` at
        once for a body over ``max_body`` or a request over ``deadline``."""
        headers = {"User-Agent": self.agent, "Accept-Encoding": "gzip, deflate", **(extra or {})}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        for attempt in range(self.retries + 1):
            self.limiter.wait()
            self.requests += 1
            try:
                response = self._request(url, headers)
            except (OSError, EOFError, http.client.HTTPException, zlib.error) as error:
                reason, wait = _describe(error), self._backoff(attempt)
            else:
                if response.status not in RETRY_STATUSES:
                    return response
                reason = f"HTTP {response.status}"
                asked = _retry_after(response)
                wait = self._backoff(attempt) if asked is None else asked
                if asked is not None and asked > self.max_wait:
                    raise FetchError(f"{url}: {reason} with Retry-After {asked:g} s, longer than this run waits "
                                     f"({self.max_wait:g} s)")
            if attempt == self.retries:
                raise FetchError(f"{url}: {reason} (gave up after {attempt + 1} attempts)")
            self.retried.append(Retry(url, reason, wait))
            self.sleep(wait)
        raise AssertionError("unreachable")

    def _backoff(self, attempt: int) -> float:
        return min(self.backoff * 2 ** attempt, self.max_wait)

    def _request(self, url: str, headers: dict[str, str]) -> Response:
        parts = urllib.parse.urlsplit(url)
        key = (parts.scheme, parts.netloc)
        connection = self._connections.get(key)
        if connection is None:
            kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            connection = self._connections[key] = kind(parts.netloc, timeout=self.timeout)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        deadline = body.Deadline(self.deadline, connection)
        try:
            with deadline:
                connection.request("GET", target, headers=headers)
                if deadline.expired:  # it fired while connecting, before there was a socket to shut down
                    raise TimeoutError
                answer = connection.getresponse()
                data, wire = body.read(answer, self.max_body, lambda: deadline.expired)
            if deadline.expired:
                raise TimeoutError
            if answer.will_close:
                self._drop(key)
        except BaseException as error:
            self._drop(key)
            if deadline.expired:
                raise LimitError(f"{url}: no complete answer within {self.deadline:g} s, the most a request may take "
                                 "(--deadline)") from None
            if isinstance(error, body.TooLarge):
                raise LimitError(f"{url}: body {error}, the most a response may have (--max-body-mib)") from None
            raise
        return Response(url, answer.status, data, answer.getheader("ETag") or "",
                        answer.getheader("Last-Modified") or "", wire, answer.getheader("Retry-After") or "")

    def _drop(self, key: tuple[str, str]) -> None:
        connection = self._connections.pop(key, None)
        if connection is not None:
            connection.close()

    def close(self) -> None:
        for key in list(self._connections):
            self._drop(key)


def _retry_after(response: Response) -> float | None:
    """Seconds the server asked to wait (``Retry-After`` as seconds or an HTTP date), if it did."""
    value = response.retry_after.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def _describe(error: BaseException) -> str:
    if isinstance(error, body.CutShort):
        return str(error)
    if isinstance(error, http.client.IncompleteRead):
        return f"body cut short ({len(error.partial)} bytes, {error.expected} more expected)"
    if isinstance(error, EOFError | zlib.error):
        return f"broken compressed body ({error})"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
