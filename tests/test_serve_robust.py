"""``serve`` and the nginx mirror under hostile requests and load: every request answered, nothing followed out."""

from __future__ import annotations

import importlib.util
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.hosts import configs
from generator.hosts.serve import make_server

from .conftest import ROOT, Served, _serve


def _bench() -> object:
    spec = importlib.util.spec_from_file_location("serve_load", ROOT / "bench" / "serve_load.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def hostile_root(tiny_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("hostile")
    root = base / "dist"
    shutil.copytree(tiny_build, root)
    (base / "secret.json").write_text('{"secret": true}')
    (root / "api" / "leak.json").symlink_to(base / "secret.json")
    (root / "api" / "loop.json").symlink_to("loop.json")
    (root / "api" / "loop").symlink_to("loop")
    return root


@pytest.fixture(scope="module")
def hostile_site(hostile_root: Path) -> Iterator[Served]:
    yield from _serve(hostile_root)


def _raw(base: str, request: bytes) -> bytes:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(request)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("path", ["/api/loop.json", "/api/loop", "/api/loop/x.json", "/api/companies/loop"])
def test_a_symlink_loop_gets_the_404_page(hostile_site: Served, path: str, capfd: pytest.CaptureFixture[str]) -> None:
    response = hostile_site.get(path)
    assert response.status == 404 and response.body
    assert "Traceback" not in capfd.readouterr().err


def test_a_symlink_out_of_the_root_is_not_served(hostile_site: Served) -> None:
    response = hostile_site.get("/api/leak.json")
    assert response.status == 404 and b"secret" not in response.body


@pytest.mark.parametrize("path", ["/.company-ipo-api", "/.company-ipo-api.digests", "/.company-ipo-api.units",
                                  "/%2Ecompany-ipo-api.digests", "/api/../.company-ipo-api"])
def test_the_bookkeeping_dotfiles_are_not_published(hostile_site: Served, hostile_root: Path, path: str) -> None:
    assert (hostile_root / ".company-ipo-api.digests").is_file()
    response = hostile_site.get(path)
    assert response.status == 404 and b"fingerprint" not in response.body and b"sha256" not in response.body


@pytest.mark.parametrize("line", [b"GET http://[x]:99999/ HTTP/1.1", b"GET http://[::1 HTTP/1.1",
                                  b"GET /a b c HTTP/1.1", b"\xff\xfe GARBAGE", b"GET / HTTP/9.9"])
def test_a_malformed_request_line_gets_400(hostile_site: Served, line: bytes,
                                           capfd: pytest.CaptureFixture[str]) -> None:
    answer = _raw(hostile_site.base, line + b"\r\nHost: localhost\r\n\r\n")
    status = answer.split(b"\r\n", 1)[0]
    assert status.split(b" ")[1:2] in ([b"400"], [b"505"]), answer[:200]
    assert "Traceback" not in capfd.readouterr().err


def test_the_backlog_holds_a_burst_of_200_clients(tiny_build: Path) -> None:
    server = make_server(tiny_build, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert server.request_queue_size >= 200
        figures = _bench().summary(_bench().burst(server.server_port, 200, timeout=20))
    finally:
        server.shutdown()
        server.server_close()
    assert figures["answered"] == 200, figures
    assert figures["max"] < 3.0, figures  # a dropped SYN is retried after 1 s, 3 s, 7 s...: none was dropped


def test_idle_and_half_open_connections_are_closed(tiny_build: Path) -> None:
    """A client that connects and sends nothing, or half a request line, or half its headers, is closed after the
    idle timeout (short here), and its thread ends: idle sockets do not hold threads for ever. No timing is
    asserted: each socket is polled for the server's close with a generous deadline."""
    server = make_server(tiny_build, "127.0.0.1", 0, quiet=True, idle_timeout=0.5)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    idle = []
    try:
        before = threading.active_count()
        for started in [b"", b"", b"GET /api/", b"GET / HTTP/1.1\r\nHost: x\r\n", b""]:
            connection = socket.create_connection(("127.0.0.1", server.server_port), timeout=60)
            connection.sendall(started)
            idle.append(connection)
        for connection in idle:  # the server closes each: end of stream (or a reset), long before the deadline
            try:
                while connection.recv(65536):
                    pass
            except ConnectionResetError:
                pass
        deadline = time.monotonic() + 60
        while threading.active_count() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threading.active_count() <= before, "the idle connections' threads did not end"
        with socket.create_connection(("127.0.0.1", server.server_port), timeout=60) as fresh:  # still serving
            fresh.sendall(b"GET /api/openapi.json HTTP/1.0\r\n\r\n")
            assert fresh.recv(64).startswith(b"HTTP/1.0 200")
    finally:
        for connection in idle:
            connection.close()
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def nginx_hostile(hostile_root: Path) -> Iterator[Served]:
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        pytest.skip("nginx is not installed")
    with tempfile.TemporaryDirectory() as prefix:
        port = _bench()._free_port()
        conf = Path(prefix) / "nginx.conf"
        conf.write_text(configs.nginx_conf(hostile_root, port), encoding="utf-8")
        process = subprocess.Popen([nginx, "-c", str(conf), "-p", prefix, "-e", "stderr"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        pytest.fail("nginx did not start")
                    time.sleep(0.05)
            yield Served(hostile_root, f"http://127.0.0.1:{port}")
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_nginx_config_never_follows_symlinks(hostile_root: Path, nginx_hostile: Served) -> None:
    assert "disable_symlinks on;" in configs.nginx_conf(hostile_root, 8080)
    assert nginx_hostile.get("/api/companies/1.json").status == 200
    leak = nginx_hostile.get("/api/leak.json")
    assert leak.status in (403, 404) and b"secret" not in leak.body
    assert nginx_hostile.get("/api/loop.json").status in (403, 404)


ENCODED = [
    ("/api/companies?page=%31", "/api/companies?page=1"),
    ("/api/companies?country=%75%73&page=%31", "/api/companies?country=us"),
    ("/api/companies?sort=%2d%76%61%6c%75%61%74%69%6f%6e", "/api/companies?sort=-valuation"),
    ("/api/companies/%61%69%72%62%6e%62", "/api/companies/airbnb"),
    ("/api/companies/%61irbn%62", "/api/companies/airbnb"),
    ("/api/export?format=%63sv", "/api/export?format=csv"),
    ("/api/companies/%31", "/api/companies/1"),
    ("/api/companies?country=%55%53", None),
    ("/api/companies?country=u%2Fs", None),
    ("/api/companies/%2e%2e%2f%2e%2e%2fsecret", None),
    ("/api/companies?page=%ZZ", None),
    ("/api/%2531", None),
]


@pytest.mark.parametrize(("url", "same_as"), ENCODED)
def test_nginx_answers_percent_encoded_urls_like_serve(hostile_site: Served, nginx_hostile: Served, url: str,
                                                       same_as: str | None) -> None:
    served, mirrored = hostile_site.get(url), nginx_hostile.get(url)
    assert (mirrored.status, mirrored.body) == (served.status, served.body), url
    if same_as is not None:  # the decoded spelling lands on the same file
        plain = hostile_site.get(same_as)
        assert (served.status, served.body) == (plain.status, plain.body) and served.status == 200


@pytest.mark.parametrize(("header", "status", "content_range", "part"), [
    ("bytes=0-9", 206, "bytes 0-9/{size}", slice(0, 10)),
    ("bytes=10-", 206, "bytes 10-{last}/{size}", slice(10, None)),
    ("bytes=-5", 206, "bytes {tail}-{last}/{size}", slice(-5, None)),
    ("bytes=0-99999999", 206, "bytes 0-{last}/{size}", slice(None)),
    ("bytes=99999999-", 416, "bytes */{size}", slice(0, 0)),
    ("bytes=-0", 416, "bytes */{size}", slice(0, 0)),
    ("bytes=5-1", 200, None, slice(None)),
    ("bytes=0-1,4-5", 200, None, slice(None)),
    ("lines=0-1", 200, None, slice(None)),
])
def test_serve_answers_a_single_byte_range(tiny_site: Served, tiny_build: Path, header: str, status: int,
                                           content_range: str | None, part: slice) -> None:
    """One range of bytes as the static hosts serve it (Polars and DuckDB read over HTTP with ranges); several
    ranges, other units and an invalid range get the whole file, a range past the end 416."""
    import urllib.error
    import urllib.request

    path = "/api/export/csv/companies.csv"
    body = (tiny_build / path.lstrip("/")).read_bytes()
    request = urllib.request.Request(tiny_site.base + path, headers={"Range": header})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            got, headers, got_status = response.read(), response.headers, response.status
    except urllib.error.HTTPError as error:
        got, headers, got_status = error.read(), error.headers, error.code
    assert (got_status, got) == (status, body[part])
    assert headers["Accept-Ranges"] == "bytes"
    size, last = len(body), len(body) - 1
    assert headers["Content-Range"] == (content_range and content_range.format(size=size, last=last, tail=size - 5))
