"""Commands that print or write a host's configuration (netlify.toml, Cloudflare's _headers and _worker.js, nginx):
registered on ``cli.main``; with ``cli.py`` the only modules that know click. Also what both use: the default output
folder, and writing or checking a generated file."""

from __future__ import annotations

import sys
from pathlib import Path

import click

DEFAULT_OUT = Path("dist")


def write_or_check(path: Path, text: str, check_only: bool, command: str) -> None:
    if check_only:
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            click.echo(f"{path} is out of date: run python -m generator {command}", err=True)
            sys.exit(1)
        return
    path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {path}")


@click.group()
def hosts() -> None:
    """Not a command: the group these are declared on (``cli.main`` takes each of them)."""


@hosts.command("netlify-toml")
@click.option("--check", "check_only", is_flag=True, help="Exit non-zero if netlify.toml differs.")
@click.option("--path", type=click.Path(path_type=Path), default=Path("netlify.toml"), show_default=True)
def netlify_toml(check_only: bool, path: Path) -> None:
    """Write (or check) netlify.toml from the route registry."""
    from generator.hosts.configs import netlify_toml as render

    write_or_check(path, render(), check_only, "netlify-toml")


@hosts.command("cloudflare-headers")
@click.option("--out", "out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the file here (e.g. dist/_headers) instead of standard output.")
def cloudflare_headers(out: Path | None) -> None:
    """Print (or write) the _headers file of Cloudflare Pages: CORS, caching, error document types; written into a
    built folder, the snapshot it serves too (the build writes the same file)."""
    from generator.hosts.configs import headers_file as render
    from generator.hosts.configs import snapshot_of

    if out is None:
        click.echo(render(), nl=False)
        return
    out.write_text(render(snapshot_of(out.parent)), encoding="utf-8")
    click.echo(f"wrote {out}", err=True)


@hosts.command("cloudflare-worker")
@click.option("--out", "out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the file here (e.g. dist/_worker.js) instead of standard output.")
def cloudflare_worker(out: Path | None) -> None:
    """Print (or write) the _worker.js of Cloudflare Pages: the query front door for /api/*, the files for the rest,
    behind the API-key gate when the project has the secret API_KEY_DIGESTS."""
    from generator.frontdoor.bundle import cloudflare_worker as render

    if out is None:
        click.echo(render(), nl=False)
        return
    out.write_text(render(), encoding="utf-8")
    click.echo(f"wrote {out}", err=True)


@hosts.command("nginx-conf")
@click.option("--root", "root", type=click.Path(path_type=Path, file_okay=False), default=DEFAULT_OUT,
              show_default=True, help="Built output folder the mirror serves.")
@click.option("--port", default=8080, show_default=True, type=int, help="Port on 127.0.0.1.")
@click.option("--out", "out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the config here instead of standard output.")
@click.option("--include", "include", is_flag=True,
              help="Only the maps and the server block, for `include` inside your own nginx http { } block.")
def nginx_conf(root: Path, port: int, out: Path | None, include: bool) -> None:
    """Print (or write) an nginx.conf serving a build with the rewrite rules of netlify.toml.

    Run it with: nginx -c "$PWD/FILE" -p PREFIX -e stderr  (pid, temp files and logs stay inside PREFIX).
    """
    from generator.hosts.configs import nginx_conf as render

    text = render(root, port, standalone=not include)
    if out is None:
        click.echo(text, nl=False)
        return
    out.write_text(text, encoding="utf-8")
    click.echo(f"wrote {out}", err=True)
