"""`webhooks deliver` against a receiver on 127.0.0.1 that checks each signature and its timestamp, counts the
deliveries per event id and injects failures (503 twice, 429 with Retry-After, a dropped connection, a 400, a hang
for a killed run); filters per subscriber, re-runs that send nothing twice, bad inputs named."""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.events.webhooks import body_of, sign, verify

ROOT = Path(__file__).resolve().parent.parent
SECRET = "whsec-test-0123456789"
FAST = ["--backoff", "0.01", "--max-wait", "5", "--timeout", "5"]


KINDS = {"company": "company", "ipo": "ipo", "round": "round", "valuation": "company", "filing": "filing",
         "api": "api"}


def make_event(n: int, type_: str, slug: str | None, date: str, snapshot: str = "2025-06-30", **extra) -> dict:
    """An event as the contract of docs/webhooks.md has it (the id a made-up digest)."""
    kind = KINDS[type_.split("-")[0]]
    company = None if slug is None else {"id": f"c-{slug}", "slug": slug, "name": slug.title()}
    return {"id": f"evt-{n:016x}", "date": date, "type": type_,
            "entity": {"kind": kind, "id": f"{kind}-{slug or 'v1'}", "url": slug and f"/api/companies/{slug}"},
            "company": company, "summary": f"{slug or 'The API'}: {type_}", "changes": [], "snapshot": snapshot,
            **extra}


EVENTS = [
    make_event(1, "company-added", "stripe", "2025-01-10"),
    make_event(2, "round-announced", "stripe", "2025-03-02", changes=[]),
    make_event(3, "ipo-filed", "klarna", "2025-03-15"),
    make_event(4, "valuation-changed", "stripe", "2025-06-30",
               changes=[{"field": "valuation_usd", "old": 50_000_000_000, "new": 65_000_000_000}]),
    make_event(5, "api-deprecated", None, "2025-06-30", sunset="2026-01-01"),
    make_event(6, "ipo-priced", "klarna", "2025-06-12"),
]
ORDER = [e["id"] for e in sorted(EVENTS, key=lambda e: (e["date"], e["id"]))]


def write_site(root: Path, events: list[dict]) -> Path:
    path = root / "api" / "changes" / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(e, separators=(",", ":")) for e in sorted(events, key=lambda e: (e["date"], e["id"]))]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return root


@dataclass
class Receiver:
    """Answers POST /{subscriber}; ``script[(subscriber, event id)]`` lists the answers of successive attempts
    ("503", "429:1" with Retry-After 1, "drop", "400", "hang", "slow:1" a 200 one second late); then 200."""

    url: str = ""
    script: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    attempts: list[tuple[str, str, float]] = field(default_factory=list)
    acked: Counter = field(default_factory=Counter)
    bad: list[str] = field(default_factory=list)
    bodies: dict[str, dict] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ids(self, who: str) -> list[str]:
        return [i for w, i, _ in self.attempts if w == who]

    def delivered(self, who: str) -> list[str]:
        return [i for (w, i), n in self.acked.items() if w == who for _ in range(n)]


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers["Content-Length"]))
            who = self.path.strip("/")
            event = json.loads(body)
            if not verify(SECRET.encode(), self.headers["Webhook-Signature"], body):
                state.bad.append(f"{who} {event['id']}: bad signature")
            stamp = int(self.headers["Webhook-Timestamp"])
            if abs(time.time() - stamp) > 60 or f"t={stamp}," not in self.headers["Webhook-Signature"]:
                state.bad.append(f"{who} {event['id']}: timestamp {stamp}")
            if not (self.headers["Webhook-Id"] == self.headers["Idempotency-Key"] == event["id"]):
                state.bad.append(f"{who} {event['id']}: id headers")
            if self.headers["Content-Type"] != "application/json" or body != body_of(event):
                state.bad.append(f"{who} {event['id']}: body")
            with state.lock:
                state.bodies[event["id"]] = event
                state.attempts.append((who, event["id"], time.monotonic()))
                steps = state.script.get((who, event["id"]), [])
                step = steps.pop(0) if steps else "200"
            if step == "drop":
                self.close_connection = True
                return
            if step == "hang":
                state.release.wait(30)
                return
            if step.startswith("slow:"):
                time.sleep(float(step[5:]))
                step = "200"
            code, _, retry_after = step.partition(":")
            self.send_response(int(code))
            if retry_after:
                self.send_header("Retry-After", retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()
            if code == "200":
                with state.lock:
                    state.acked[(who, event["id"])] += 1

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def subscriptions(path: Path, receiver: Receiver, **subscribers: dict) -> Path:
    lines = []
    for name, filters in subscribers.items():
        filters = dict(filters)
        url = filters.pop("url", f"{receiver.url}/{name}")
        lines += ["[[subscriber]]", f'name = "{name}"', f'url = "{url}"', 'secret_env = "HOOK_SECRET"']
        # since as a TOML date, the other filters as arrays of strings
        lines += [f"{key} = {value if key == 'since' else json.dumps(value)}" for key, value in filters.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(site: Path, subs: Path, state: Path, *extra: str, env: dict | None = None):
    args = ["webhooks", "deliver", "--site", str(site), "--subscriptions", str(subs), "--state", str(state),
            *FAST, *extra]
    return CliRunner().invoke(main, args, env={"HOOK_SECRET": SECRET} if env is None else env)


def test_signature_scheme_is_stripes() -> None:
    body = b'{"id":"evt-1"}'
    header = sign(b"k", 1700000000, body)
    assert header == "t=1700000000,v1=" + __import__("hmac").new(
        b"k", b"1700000000." + body, "sha256").hexdigest()
    assert verify(b"k", header, body, now=1700000100)
    assert not verify(b"k", header, body, now=1700000000 + 301)
    assert not verify(b"other", header, body, now=1700000000)
    assert not verify(b"k", header, body + b" ", now=1700000000)


def test_delivers_signed_oldest_first_and_a_rerun_sends_nothing(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = subscriptions(tmp_path / "hooks.toml", receiver, everything={})
    state = tmp_path / "state.json"
    result = run(site, subs, state)
    assert result.exit_code == 0, result.output
    assert receiver.bad == []
    assert receiver.ids("everything") == ORDER
    assert "everything: 6 delivered, 0 already had, 0 failed" in result.output
    # the pass-through key of the api event arrived untouched
    again = run(site, subs, state)
    assert again.exit_code == 0, again.output
    assert "everything: 0 delivered, 6 already had, 0 failed" in again.output
    assert receiver.ids("everything") == ORDER
    assert SECRET not in result.output + again.output + state.read_text()
    assert sorted(os.listdir(site / "api" / "changes")) == ["events.jsonl"]


def test_retries_503_429_and_a_dropped_connection_then_delivers_once(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = subscriptions(tmp_path / "hooks.toml", receiver, flaky={})
    receiver.script = {("flaky", ORDER[0]): ["503", "503"], ("flaky", ORDER[1]): ["429:1"],
                       ("flaky", ORDER[2]): ["drop"]}
    result = run(site, subs, tmp_path / "state.json")
    assert result.exit_code == 0, result.output
    assert receiver.bad == []
    attempts = Counter(receiver.ids("flaky"))
    assert [attempts[i] for i in ORDER] == [3, 2, 2, 1, 1, 1]
    assert receiver.delivered("flaky") == ORDER
    times = [t for w, i, t in receiver.attempts if i == ORDER[1]]
    assert times[1] - times[0] >= 0.9, "Retry-After: 1 was not honoured"


def test_a_400_is_not_retried_and_stops_that_subscriber_only(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = subscriptions(tmp_path / "hooks.toml", receiver, strict={}, calm={})
    state = tmp_path / "state.json"
    receiver.script = {("strict", ORDER[2]): ["400"]}
    result = run(site, subs, state)
    assert result.exit_code != 0
    assert receiver.ids("strict") == ORDER[:3]
    assert receiver.ids("calm") == ORDER
    assert f"FAILED strict: event {ORDER[2]}" in result.output and "HTTP 400 after 1 attempt(s)" in result.output
    assert "strict: 2 delivered, 0 already had, 1 failed" in result.output
    # the receiver is fixed: the next run resumes at the failed event and sends calm nothing
    again = run(site, subs, state)
    assert again.exit_code == 0, again.output
    assert receiver.ids("strict") == ORDER[:3] + ORDER[2:]
    assert receiver.ids("calm") == ORDER
    assert receiver.delivered("strict") == ORDER
    assert "strict: 4 delivered, 2 already had, 0 failed" in again.output


def test_attempts_are_bounded(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS[:1])
    subs = subscriptions(tmp_path / "hooks.toml", receiver, down={})
    receiver.script = {("down", EVENTS[0]["id"]): ["500"] * 10}
    result = run(site, subs, tmp_path / "state.json", "--attempts", "3")
    assert result.exit_code != 0
    assert len(receiver.ids("down")) == 3
    assert "HTTP 500 after 3 attempt(s)" in result.output


def test_a_timeout_is_retried_and_a_long_retry_after_is_cut_to_max_wait(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS[:2])
    subs = subscriptions(tmp_path / "hooks.toml", receiver, slow={})
    first, second = sorted(e["id"] for e in EVENTS[:2])
    receiver.script = {("slow", first): ["slow:1.5"], ("slow", second): ["429:3600"]}
    started = time.monotonic()
    result = run(site, subs, tmp_path / "state.json", "--timeout", "0.3", "--max-wait", "0.2")
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 10
    assert Counter(receiver.ids("slow")) == {first: 2, second: 2}
    times = [t for w, i, t in receiver.attempts if i == second]
    assert 0.15 <= times[1] - times[0] < 3
    # the late 200 of the timed-out attempt reached no one: the receiver processed the event twice (at least once)
    time.sleep(1.5)
    assert receiver.acked[("slow", first)] == 2


def test_a_subscriber_nobody_answers_fails_and_the_others_go_on(tmp_path: Path, receiver: Receiver) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    site = write_site(tmp_path / "dist", EVENTS)
    subs = subscriptions(tmp_path / "hooks.toml", receiver, gone={"url": f"http://127.0.0.1:{port}/hook"}, here={})
    result = run(site, subs, tmp_path / "state.json", "--attempts", "2")
    assert result.exit_code != 0
    assert f"FAILED gone: event {ORDER[0]}" in result.output and "no answer after 2 attempt(s)" in result.output
    assert "5 more event(s) wait" in result.output
    assert receiver.delivered("here") == ORDER


def test_filters_per_subscriber(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = subscriptions(tmp_path / "hooks.toml", receiver,
                         ipos={"kinds": ["ipo"]}, stripe={"companies": ["stripe"]},
                         priced={"types": ["ipo-priced", "api-deprecated"]}, recent={"since": "2025-06-01"},
                         both={"companies": ["klarna"], "types": ["ipo-filed"]})
    result = run(site, subs, tmp_path / "state.json")
    assert result.exit_code == 0, result.output
    by_id = {e["id"]: e for e in EVENTS}
    assert [by_id[i]["type"] for i in receiver.ids("ipos")] == ["ipo-filed", "ipo-priced"]
    assert [by_id[i]["type"] for i in receiver.ids("stripe")] == ["company-added", "round-announced",
                                                                   "valuation-changed"]
    assert [by_id[i]["type"] for i in receiver.ids("priced")] == ["ipo-priced", "api-deprecated"]
    assert [by_id[i]["date"] for i in receiver.ids("recent")] == ["2025-06-12", "2025-06-30", "2025-06-30"]
    assert [by_id[i]["type"] for i in receiver.ids("both")] == ["ipo-filed"]


def test_state_is_bounded_by_the_window_and_a_new_build_sends_only_what_is_new(tmp_path: Path,
                                                                                receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = subscriptions(tmp_path / "hooks.toml", receiver, all={})
    state = tmp_path / "state.json"
    assert run(site, subs, state).exit_code == 0
    newer = [make_event(7, "ipo-listed", "klarna", "2025-07-03", snapshot="2025-07-31"),
             make_event(8, "filing-added", "stripe", "2025-02-01", snapshot=None)]
    write_site(site, EVENTS[1:] + newer)  # the window moved: event 1 is gone; a back-dated dated fact came
    result = run(site, subs, state)
    assert result.exit_code == 0, result.output
    assert receiver.ids("all") == ORDER + [newer[1]["id"], newer[0]["id"]]
    saved = json.loads(state.read_text())["subscribers"]["all"]["delivered"]
    assert saved == {e["id"]: e["date"] for e in EVENTS[1:] + newer}  # event 1 left with the window
    write_site(site, [])  # a window published empty forgets nothing
    assert run(site, subs, state).exit_code == 0
    assert json.loads(state.read_text())["subscribers"]["all"]["delivered"] == saved


def test_the_events_as_the_build_writes_them_pass_through(tmp_path: Path, receiver: Receiver) -> None:
    """A dated fact has snapshot null; the company object carries its url and a numeric id; unknown keys go
    through untouched."""
    events = [make_event(1, "ipo-filed", "klarna", "2025-03-15", snapshot=None, extra={"a": [1, "é"]})]
    events[0]["company"].update(id=546, url="/api/companies/klarna.json")  # a numeric id, as the build has it
    site = write_site(tmp_path / "dist", events)
    subs = subscriptions(tmp_path / "hooks.toml", receiver, one={})
    assert run(site, subs, tmp_path / "state.json").exit_code == 0
    assert receiver.bad == [] and receiver.delivered("one") == [events[0]["id"]]
    assert receiver.bodies[events[0]["id"]] == events[0]


def test_a_killed_run_resends_at_most_the_event_in_flight(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = subscriptions(tmp_path / "hooks.toml", receiver, slow={})
    state = tmp_path / "state.json"
    receiver.script = {("slow", ORDER[3]): ["hang"]}
    args = [sys.executable, "-m", "generator", "webhooks", "deliver", "--site", str(site), "--subscriptions",
            str(subs), "--state", str(state), *FAST]
    process = subprocess.Popen(args, cwd=ROOT, env={**os.environ, "HOOK_SECRET": SECRET},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while len(receiver.ids("slow")) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert receiver.ids("slow") == ORDER[:4]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    receiver.release.set()
    result = run(site, subs, state)
    assert result.exit_code == 0, result.output
    assert receiver.ids("slow") == ORDER[:4] + ORDER[3:]
    assert Counter(receiver.ids("slow"))[ORDER[3]] == 2 and receiver.delivered("slow") == ORDER


BAD_SUBSCRIPTIONS = {
    "toml": ('[[subscriber]\nname = "a"\n', "not valid TOML"),
    "unknown key": ('[[subscriber]]\nname = "a"\nurl = "http://127.0.0.1/"\nsecret_env = "S"\nkind = ["ipo"]\n',
                    "subscriber[0] ('a').kind: Extra inputs are not permitted"),
    "type": ('[[subscriber]]\nname = "a"\nurl = "http://127.0.0.1/"\nsecret_env = "S"\ntypes = ["ipo-prized"]\n',
             "subscriber[0] ('a').types[0]: Input should be"),
    "url": ('[[subscriber]]\nname = "a"\nurl = "ftp://x/"\nsecret_env = "S"\n', "subscriber[0] ('a').url"),
    "no secret_env": ('[[subscriber]]\nname = "a"\nurl = "http://127.0.0.1/"\n',
                      "subscriber[0] ('a').secret_env: Field required"),
    "since": ('[[subscriber]]\nname = "a"\nurl = "http://127.0.0.1/"\nsecret_env = "S"\nsince = "June"\n',
              "subscriber[0] ('a').since"),
    "slug": ('[[subscriber]]\nname = "a"\nurl = "http://127.0.0.1/"\nsecret_env = "S"\ncompanies = ["Stripe"]\n',
             "subscriber[0] ('a').companies"),
    "twice": ('[[subscriber]]\nname = "a"\nurl = "http://127.0.0.1/"\nsecret_env = "S"\n' * 2,
              "two subscribers are named 'a'"),
}


@pytest.mark.parametrize("case", sorted(BAD_SUBSCRIPTIONS))
def test_a_bad_subscriptions_file_is_named_with_its_key(tmp_path: Path, case: str) -> None:
    text, expected = BAD_SUBSCRIPTIONS[case]
    site = write_site(tmp_path / "dist", EVENTS)
    (tmp_path / "hooks.toml").write_text(text, encoding="utf-8")
    result = run(site, tmp_path / "hooks.toml", tmp_path / "state.json", env={"S": SECRET})
    assert result.exit_code != 0
    assert "hooks.toml: " in result.output and expected in result.output, result.output
    assert not (tmp_path / "state.json").exists()


def test_a_missing_secret_names_its_variable_and_sends_nothing(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = tmp_path / "hooks.toml"
    subs.write_text(f'[[subscriber]]\nname = "a"\nurl = "{receiver.url}/a"\nsecret_env = "HOOK_SECRET"\n'
                    f'[[subscriber]]\nname = "b"\nurl = "{receiver.url}/b"\nsecret_env = "B_SECRET"\n')
    result = run(site, subs, tmp_path / "state.json")
    assert result.exit_code != 0
    assert "subscriber 'b': environment variable B_SECRET" in result.output
    assert SECRET not in result.output
    assert receiver.attempts == []


@pytest.mark.parametrize(("content", "expected"), [
    (None, "events.jsonl: no such file"),
    ('{"id": "evt-1"}\n', "events.jsonl:1: date: Field required"),
    (json.dumps(EVENTS[0]) + "\n{oops\n", "events.jsonl:2: not JSON"),
    (json.dumps(EVENTS[0]) + "\n" + json.dumps({**EVENTS[0], "date": "30/06/2025"}) + "\n",
     "events.jsonl:2: date: Value error"),
    (json.dumps(EVENTS[0]) + "\n" + json.dumps(EVENTS[0]) + "\n",
     "events.jsonl:2: event id evt-0000000000000001 again"),
])
def test_a_missing_or_malformed_events_file_names_file_and_line(tmp_path: Path, content: str | None,
                                                                 expected: str) -> None:
    site = tmp_path / "dist"
    (site / "api" / "changes").mkdir(parents=True)
    if content is not None:
        (site / "api" / "changes" / "events.jsonl").write_text(content)
    subs = tmp_path / "hooks.toml"
    subs.write_text('[[subscriber]]\nname = "a"\nurl = "http://127.0.0.1:9/"\nsecret_env = "HOOK_SECRET"\n')
    result = run(site, subs, tmp_path / "state.json")
    assert result.exit_code != 0
    assert expected in result.output, result.output


def test_the_state_file_may_not_be_inside_the_site(tmp_path: Path) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = tmp_path / "hooks.toml"
    subs.write_text('[[subscriber]]\nname = "a"\nurl = "http://127.0.0.1:9/"\nsecret_env = "HOOK_SECRET"\n')
    result = run(site, subs, site / "state.json")
    assert result.exit_code != 0 and "must not be inside the site" in result.output
    assert not (site / "state.json").exists()



def test_the_documented_verification_and_example_hold() -> None:
    """docs/webhooks.md's Python snippet accepts what ``sign`` makes and refuses a tampered body or an old
    timestamp; its worked example is what ``sign`` gives."""
    page = (ROOT / "docs" / "webhooks.md").read_text(encoding="utf-8")
    (snippet,) = re.findall(r"^```python\n(.*?)^```$", page, re.MULTILINE | re.DOTALL)
    namespace: dict = {}
    exec(compile(snippet, "docs/webhooks.md", "exec"), namespace)  # noqa: S102
    documented = namespace["verify"]
    body = body_of(EVENTS[3])
    now = int(time.time())
    assert documented(SECRET.encode(), sign(SECRET.encode(), now, body), body)
    assert not documented(SECRET.encode(), sign(SECRET.encode(), now, body), body.replace(b"65", b"66"))
    assert not documented(SECRET.encode(), sign(SECRET.encode(), now - 301, body), body)
    assert not documented(b"another secret", sign(SECRET.encode(), now, body), body)
    example = sign(b"whsec-example", 1767225600, b'{"id":"evt-3f2a9c0d1e4b5a67"}')
    assert f"header is `{example}`" in page.replace("\n", " ")


def test_one_run_at_a_time_per_state_file(tmp_path: Path, receiver: Receiver) -> None:
    site = write_site(tmp_path / "dist", EVENTS)
    subs = subscriptions(tmp_path / "hooks.toml", receiver, one={})
    state = tmp_path / "state.json"
    with (tmp_path / "state.json.lock").open("a") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        result = run(site, subs, state)
    assert result.exit_code != 0 and "another webhooks run holds it" in result.output
    assert receiver.attempts == []
    assert run(site, subs, state).exit_code == 0
