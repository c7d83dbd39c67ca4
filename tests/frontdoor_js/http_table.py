"""Start a server, fetch a table of URLs from it, stop it (run inside ``unshare -n`` for dev servers that listen
on every interface).

    python tests/frontdoor_js/http_table.py SITE_DIR PORT URLS_JSON OUT_JSON -- COMMAND...

URLS_JSON is a list of URLs (GET), or ``{"requests": [...], "static": false}`` whose requests are URLs or
``{"name", "url", "method", "headers"}``. Writes, per URL (or name): status, the headers below, the body as text,
and the seconds the request took. Then, unless ``static`` is false, times 200 fetches of one static file for
comparison (``static_seconds``); with ``"static": "interleaved"``, one fetch of that file after each request
instead (as many samples as requests, under the same conditions: what a p99 of the two compares). With
``"passes": N``, the table is asked N times; ``passes`` holds each pass's seconds per URL and static seconds.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time

STATIC_FILE = "/api/companies/all/sort=-valuation,page=1.json"
HEADERS = ("content-type", "access-control-allow-origin", "access-control-allow-headers", "cache-control", "vary",
           "www-authenticate", "retry-after", "content-disposition", "allow", "api-version", "dataset-snapshot")


def fetch(connection: http.client.HTTPConnection, url: str, method: str = "GET", headers: dict | None = None,
          ) -> tuple[int, bytes, dict[str, str], float]:
    start = time.perf_counter()
    connection.request(method, url, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    return response.status, body, {k.lower(): v for k, v in response.getheaders()}, time.perf_counter() - start


def main() -> None:
    site, port, urls_file, out_file, separator, *command = sys.argv[1:]
    assert separator == "--" and command, __doc__
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
    env = {**os.environ, "NETLIFY_TELEMETRY_DISABLED": "1", "WRANGLER_SEND_METRICS": "false", "BROWSER": "none"}
    log = open(os.path.join(os.path.dirname(out_file), "server.log"), "wb")  # noqa: SIM115
    server = subprocess.Popen(command, cwd=site, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 150
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
                fetch(connection, "/api/query-space.json")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"{command[0]} did not start") from None
                time.sleep(0.5)
        with open(urls_file, encoding="utf-8") as handle:
            asked = json.load(handle)
        requests = asked["requests"] if isinstance(asked, dict) else asked
        table = {}
        mode = asked.get("static", True) if isinstance(asked, dict) else True
        passes = []
        for _ in range(asked.get("passes", 1) if isinstance(asked, dict) else 1):
            static: list[float] = []
            for entry in requests:
                entry = {"url": entry} if isinstance(entry, str) else entry
                status, body, headers, seconds = fetch(connection, entry["url"], entry.get("method", "GET"),
                                                       entry.get("headers"))
                table[entry.get("name", entry["url"])] = {
                    "status": status, "body": body.decode("utf-8", "replace"), "seconds": seconds,
                    **{h: headers.get(h) for h in HEADERS}}
                if mode == "interleaved":
                    static.append(fetch(connection, STATIC_FILE)[3])
            passes.append({"seconds": {name: row["seconds"] for name, row in table.items()}, "static": static})
        if mode is True:
            static = [fetch(connection, STATIC_FILE)[3] for _ in range(200)]
        with open(out_file, "w", encoding="utf-8") as handle:
            json.dump({"table": table, "static_seconds": static, "passes": passes}, handle)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
