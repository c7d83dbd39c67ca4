"""Run a host's local dev server over a build and fetch a table of URLs from it (run inside ``unshare -n``).

    python tests/dev_table.py SITE_DIR PORT URLS_JSON -- COMMAND...

COMMAND (``netlify dev ...``, ``wrangler pages dev ...``) runs in SITE_DIR and must listen on 127.0.0.1:PORT;
HOME must point to a scratch folder. Prints, as JSON, each URL's status, body sha256 and the headers the tests
compare.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

HEADERS = ("content-type", "access-control-allow-origin", "cache-control")


def fetch(url: str) -> tuple[int, bytes, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read(), {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as error:
        return error.code, error.read(), {k.lower(): v for k, v in error.headers.items()}


def main() -> None:
    site, port, urls_file, separator, *command = sys.argv[1:]
    assert separator == "--" and command, __doc__
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
    env = {**os.environ, "NETLIFY_TELEMETRY_DISABLED": "1", "WRANGLER_SEND_METRICS": "false", "BROWSER": "none"}
    server = subprocess.Popen(command, cwd=site, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                fetch(base + "/")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"{command[0]} did not start") from None
                time.sleep(0.5)
        table = {}
        with open(urls_file, encoding="utf-8") as handle:
            urls = json.load(handle)
        for url in urls:
            status, body, headers = fetch(base + url)
            table[url] = {"status": status, "sha256": hashlib.sha256(body).hexdigest(),
                          **{h: headers.get(h) for h in HEADERS}}
        print(json.dumps(table, indent=1))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
