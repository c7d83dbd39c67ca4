"""Run ``netlify dev`` offline over a build and fetch a table of URLs from it (run inside ``unshare -n``).

    python tests/netlify/dev_table.py NETLIFY_BIN SITE_DIR PORT URLS_JSON

SITE_DIR holds netlify.toml and the build as ``dist``; HOME must point to a scratch folder. Prints, as JSON,
each URL's status, body sha256 and the headers the tests compare.
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

HEADERS = ("content-type", "access-control-allow-origin")


def fetch(url: str) -> tuple[int, bytes, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read(), {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as error:
        return error.code, error.read(), {k.lower(): v for k, v in error.headers.items()}


def main() -> None:
    netlify, site, port, urls_file = sys.argv[1:5]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
    command = [netlify, "dev", "--offline", "--internal-disable-edge-functions", "--framework", "#static",
               "--dir", "dist", "--port", port]
    env = {**os.environ, "NETLIFY_TELEMETRY_DISABLED": "1", "BROWSER": "none"}
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
                    raise SystemExit("netlify dev did not start") from None
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
