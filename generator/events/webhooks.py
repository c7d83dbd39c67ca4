"""Signed delivery of the published change events to each subscriber, at least once, oldest first.

One POST per event, the body the event's JSON; signed with HMAC-SHA256 over ``"{timestamp}.{body}"`` (the scheme
of Stripe's ``Stripe-Signature``, in the header ``Webhook-Signature: t=...,v1=...``); retried with exponential
backoff by urllib3's ``Retry`` on connection errors, timeouts, 408, 429 and 5xx (``Retry-After`` honoured, capped);
what a subscriber acknowledged (2xx) recorded in a state file rewritten atomically after each delivery, so a re-run
sends nothing twice and a killed run resends at most the one event in flight; the file keeps the ids of the events
still published (the window), so it stays bounded. docs/webhooks.md is the reference.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import urllib3
from urllib3.exceptions import HTTPError, MaxRetryError
from urllib3.util.retry import Retry

from generator.events.subscriptions import (
    Subscriber,
    WebhookError,
    read_events,
    read_secrets,
    read_subscriptions,
)

__all__ = ["DeliveryOptions", "Report", "Outcome", "WebhookError", "body_of", "sign", "verify", "deliver",
           "SIGNATURE_HEADER"]

SIGNATURE_HEADER = "Webhook-Signature"
TOLERANCE_SECONDS = 300
"""How old a signature's timestamp may be before a receiver (``verify``) refuses it."""
RETRY_STATUSES = frozenset({408, 429, *range(500, 600)})
STATE_FORMAT = 1
USER_AGENT = "company-ipo-api-webhooks/1"


@dataclass(frozen=True)
class DeliveryOptions:
    attempts: int = 5
    """Requests per event at most, the first included."""
    backoff: float = 1.0
    """urllib3's backoff factor: waits of 0, 2, 4, 8... times this between attempts (a Retry-After wins)."""
    max_wait: float = 60.0
    """Seconds one wait may last at most, a receiver's Retry-After included."""
    timeout: float = 10.0
    """Seconds to connect, and seconds to wait for the answer, per request."""

    def __post_init__(self) -> None:
        if self.attempts < 1 or min(self.backoff, self.max_wait) < 0 or self.timeout <= 0:
            raise ValueError(f"delivery options out of range: {self}")


def body_of(event: Mapping[str, Any]) -> bytes:
    """The request body: the event's JSON, compact, keys sorted, UTF-8."""
    return json.dumps(event, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def sign(secret: bytes, timestamp: int, body: bytes) -> str:
    """The signature header's value: ``t={timestamp},v1={hex HMAC-SHA256 of "{timestamp}.{body}"}``."""
    digest = hmac.new(secret, str(timestamp).encode("ascii") + b"." + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def verify(secret: bytes, header: str, body: bytes, *, now: float | None = None,
           tolerance: int = TOLERANCE_SECONDS) -> bool:
    """What a receiver does: the header's ``t`` within ``tolerance`` seconds of now, and one of its ``v1`` equal
    (in constant time) to the HMAC of ``"{t}.{body}"``. The same code is in docs/webhooks.md."""
    parts = [item.split("=", 1) for item in header.split(",") if "=" in item]
    stamps = [value for key, value in parts if key.strip() == "t"]
    if len(stamps) != 1 or not stamps[0].strip().isdigit():
        return False
    timestamp = int(stamps[0])
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = hmac.new(secret, f"{timestamp}.".encode("ascii") + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, value.strip()) for key, value in parts if key.strip() == "v1")


@dataclass
class Outcome:
    """What one subscriber got in this run."""

    name: str
    delivered: int = 0
    already: int = 0
    failed: str | None = None
    """The event that failed and why; the subscriber stopped there."""
    waiting: int = 0
    """Matching events after the failed one, left for the next run."""


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def failed(self) -> list[Outcome]:
        return [one for one in self.outcomes if one.failed is not None]

    def lines(self) -> list[str]:
        out = []
        for one in self.outcomes:
            out.append(f"{one.name}: {one.delivered} delivered, {one.already} already had, "
                       f"{1 if one.failed else 0} failed")
        for one in self.failed:
            out.append(f"FAILED {one.name}: {one.failed}; it stopped there, {one.waiting} more event(s) wait "
                       f"for the next run")
        return out


class _State:
    """The state file: per subscriber, the events it acknowledged, id -> date. An id leaves the file once its date
    falls behind the oldest published event (the back of the window moved past it), so the file stays as large as
    the window; an event that vanished from the middle of the window, or a window published empty, drops nothing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raw = {"format": STATE_FORMAT, "subscribers": {}}
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise WebhookError(f"{path}: not a webhook state file: {error}") from None
        subscribers = raw.get("subscribers") if isinstance(raw, dict) else None
        if not isinstance(subscribers, dict) or raw.get("format") != STATE_FORMAT or \
                not all(isinstance(v, dict) and isinstance(v.get("delivered"), dict) for v in subscribers.values()):
            raise WebhookError(f"{path}: not a webhook state file of format {STATE_FORMAT}")
        self.subscribers: dict[str, dict[str, Any]] = raw["subscribers"]

    def _delivered(self, name: str) -> dict[str, str]:
        return self.subscribers.setdefault(name, {"delivered": {}})["delivered"]

    def had(self, name: str, event: Mapping[str, Any]) -> bool:
        return event["id"] in self._delivered(name)

    def record(self, name: str, event: Mapping[str, Any]) -> None:
        self._delivered(name)[event["id"]] = event["date"]
        self.save()

    def prune(self, name: str, events: list[dict[str, Any]]) -> None:
        """Forget the ids dated before the oldest published event (none when nothing is published)."""
        if not events:
            return
        oldest = min(e["date"] for e in events)
        delivered = self._delivered(name)
        gone = [event_id for event_id, day in delivered.items() if day < oldest]
        for event_id in gone:
            del delivered[event_id]
        if gone:
            self.save()

    def save(self) -> None:
        text = json.dumps({"format": STATE_FORMAT, "subscribers": self.subscribers}, indent=1, sort_keys=True)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _retry(options: DeliveryOptions) -> Retry:
    cap = options.max_wait

    class CappedRetry(Retry):
        """urllib3's Retry with a receiver's Retry-After cut to ``max_wait`` seconds."""

        def get_retry_after(self, response: Any) -> float | None:
            seconds = super().get_retry_after(response)
            return None if seconds is None else min(seconds, cap)

    return CappedRetry(total=options.attempts - 1, connect=None, read=None, status=None, other=None,
                       redirect=False, allowed_methods=None, status_forcelist=RETRY_STATUSES,
                       backoff_factor=options.backoff, backoff_max=cap, respect_retry_after_header=True)


def _headers(event: Mapping[str, Any], secret: bytes, body: bytes) -> dict[str, str]:
    timestamp = int(time.time())
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Webhook-Id": event["id"],
        "Idempotency-Key": event["id"],
        "Webhook-Event-Type": event["type"],
        "Webhook-Timestamp": str(timestamp),
        SIGNATURE_HEADER: sign(secret, timestamp, body),
    }


def _post(pool: urllib3.PoolManager, url: str, event: Mapping[str, Any], secret: bytes,
          options: DeliveryOptions) -> str | None:
    """One event to one URL, retried as the options say; None when acknowledged (2xx), else the reason. Each
    attempt is signed anew (a fresh timestamp), so a late retry is not taken for a replay; urllib3's Retry decides
    whether to try again (attempts left, which errors and statuses) and how long to wait."""
    body = body_of(event)
    retry = _retry(options)
    timeout = urllib3.Timeout(connect=options.timeout, read=options.timeout)
    while True:
        attempts = len(retry.history) + 1
        try:
            response = pool.request("POST", url, body=body, headers=_headers(event, secret, body), retries=False,
                                    timeout=timeout, redirect=False)
        except HTTPError as error:  # no answer: refused, dropped, timed out
            try:
                retry = retry.increment("POST", url, error=error)
            except MaxRetryError as final:
                return f"no answer after {attempts} attempt(s): {final.reason}"
            except HTTPError:  # an error Retry does not retry re-raises it
                return f"no answer after {attempts} attempt(s): {error}"
            retry.sleep()
            continue
        if 200 <= response.status < 300:
            return None
        if response.status not in RETRY_STATUSES:
            return f"HTTP {response.status} after {attempts} attempt(s) (not retried)"
        try:
            retry = retry.increment("POST", url, response=response)
        except MaxRetryError:
            return f"HTTP {response.status} after {attempts} attempt(s)"
        retry.sleep(response)


def _check_outside(site: Path, state: Path) -> None:
    try:
        state.resolve().relative_to(site.resolve())
    except ValueError:
        return
    raise WebhookError(f"{state}: the state file must not be inside the site {site} (nothing is written there)")


def deliver(site: Path, subscriptions: Path, state: Path, options: DeliveryOptions | None = None,
            environ: Mapping[str, str] | None = None) -> Report:
    """Send each subscriber the events of ``site`` that pass its filters and it has not yet had, oldest first.
    A subscriber whose event finally fails stops there for this run; the others go on. Raises WebhookError
    before sending anything when the site's events, the subscriptions, a secret or the state file are bad."""
    options = options or DeliveryOptions()
    _check_outside(site, state)
    events = read_events(site)
    subscribers = read_subscriptions(subscriptions)
    secrets = read_secrets(subscribers, os.environ if environ is None else environ)
    report = Report()
    with _locked(state), urllib3.PoolManager(headers={"User-Agent": USER_AGENT}) as pool:
        record = _State(state)
        for one in subscribers:
            report.outcomes.append(_deliver_one(pool, one, secrets[one.name], events, record, options))
    return report


@contextmanager
def _locked(state: Path) -> Iterator[None]:
    """One run at a time per state file: an exclusive lock on ``{state}.lock`` beside it (two overlapping runs would
    each send what the other is sending)."""
    lock = state.with_name(state.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WebhookError(f"{state}: another webhooks run holds it ({lock}); try again when it is done") from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _deliver_one(pool: urllib3.PoolManager, one: Subscriber, secret: bytes, events: list[dict[str, Any]],
                 record: _State, options: DeliveryOptions) -> Outcome:
    outcome = Outcome(one.name)
    wanted = [e for e in events if one.wants(e)]
    for index, event in enumerate(wanted):
        if record.had(one.name, event):
            outcome.already += 1
            continue
        reason = _post(pool, one.url, event, secret, options)
        if reason is not None:
            outcome.failed = f"event {event['id']} ({event['type']}, {event['date']}): {reason}"
            outcome.waiting = sum(not record.had(one.name, e) for e in wanted[index + 1:])
            break
        record.record(one.name, event)
        outcome.delivered += 1
    record.prune(one.name, events)
    return outcome
