"""Latency of a burst of concurrent clients against ``serve`` (and the nginx mirror, if nginx is installed).

    python bench/serve_load.py --dir dist [--clients 200] [--rounds 5] [--nginx]

Each round opens ``clients`` connections at once (one thread each, loopback only), each sends one GET and reads
the whole answer; the script prints the answered count and the p50 / p99 / max latency per server.
"""

from __future__ import annotations

import argparse
import http.client
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PATHS = ("/api/companies", "/api/companies/1", "/api/companies?sort=-valuation", "/api/nothing-here", "/")


def burst(port: int, clients: int, timeout: float = 30.0) -> list[float | None]:
    """Latency of each client's request in seconds (None: no answer)."""
    latencies: list[float | None] = [None] * clients
    start = threading.Barrier(clients)

    def one(index: int) -> None:
        start.wait()
        began = time.perf_counter()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
            connection.request("GET", PATHS[index % len(PATHS)])
            connection.getresponse().read()
            connection.close()
        except (OSError, http.client.HTTPException):
            return
        latencies[index] = time.perf_counter() - began

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def summary(latencies: list[float | None]) -> dict[str, float]:
    answered = sorted(x for x in latencies if x is not None)
    if not answered:
        return {"answered": 0, "total": len(latencies)}
    pick = lambda q: answered[min(len(answered) - 1, int(q * len(answered)))]  # noqa: E731
    return {"answered": len(answered), "total": len(latencies), "p50": pick(0.5), "p99": pick(0.99),
            "max": answered[-1]}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_serve(root: Path, clients: int, rounds: int) -> list[float | None]:
    from generator.hosts.serve import make_server

    server = make_server(root, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        return [x for _ in range(rounds) for x in burst(server.server_port, clients)]
    finally:
        server.shutdown()
        server.server_close()


def run_nginx(root: Path, clients: int, rounds: int) -> list[float | None] | None:
    from generator.hosts.configs import nginx_conf

    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        return None
    with tempfile.TemporaryDirectory() as prefix:
        port = _free_port()
        conf = Path(prefix) / "nginx.conf"
        conf.write_text(nginx_conf(root, port), encoding="utf-8")
        process = subprocess.Popen([nginx, "-c", str(conf), "-p", prefix, "-e", "stderr"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            return [x for _ in range(rounds) for x in burst(port, clients)]
        finally:
            process.terminate()
            process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("dist"))
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--nginx", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    results = {"serve": run_serve(args.dir, args.clients, args.rounds)}
    if args.nginx:
        results["nginx"] = run_nginx(args.dir, args.clients, args.rounds)
    for name, latencies in results.items():
        if latencies is None:
            print(f"{name}: not installed")
            continue
        figures = summary(latencies)
        shown = ", ".join(f"{k} {v:.3f}s" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items())
        print(f"{name} ({args.clients} clients x {args.rounds} rounds): {shown}")


if __name__ == "__main__":
    main()
