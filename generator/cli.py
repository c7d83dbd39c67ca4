"""Command line: each command is its options plus one library call. Only this module and ``cli_hosts.py`` (the hosts'
configurations' commands) know click."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from pathlib import Path

import click

from generator.cli_hosts import DEFAULT_OUT, hosts, write_or_check
from generator.pipeline.engines import ENGINES

DEFAULT_DATA = Path("data")


@click.group()
def main() -> None:
    """Build a static company & IPO data API from the canonical dataset."""


def _site_url(value: str | None) -> str | None:
    """An absolute http(s) URL without query or fragment, its trailing slash dropped."""
    if not value:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise click.BadParameter(f"{value!r} is not an absolute http(s) URL without query (https://api.example.com)",
                                 param_hint="--site-url")
    return value.rstrip("/")


def _fail_on_data_error(error: Exception) -> click.ClickException:
    return click.ClickException(str(error))


@main.command()
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=DEFAULT_DATA, show_default=True,
              help="Folder of the canonical dataset (CSV files + dataset.json).")
def check(data_dir: Path) -> None:
    """Validate the dataset only; list every problem with file, line, column and reason."""
    from generator.dataset.load import DataError, validate

    try:
        info, tables = validate(data_dir)
    except DataError as error:
        raise _fail_on_data_error(error) from None
    counts = ", ".join(f"{name} {len(parsed.rows)}" for name, parsed in tables.items())
    click.echo(f"{data_dir}: valid (as of {info.as_of}): {counts}")


@main.command()
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=DEFAULT_DATA, show_default=True,
              help="Folder of the canonical dataset.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=DEFAULT_OUT, show_default=True,
              help="Output folder; replaced atomically, unchanged files kept as they were.")
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
@click.option("--force", is_flag=True, help="Rebuild even if data and code are those of the existing output.")
@click.option("--workers", type=click.IntRange(min=0, max=64), default=None,
              help="Processes validating the tables and rendering the listings in parallel (threads rendering them "
              "with --engine threads); 0: none. Default: up to 4 (one per core) from 1,000 companies on, else 0. "
              "The output is the same for every value.")
@click.option("--changes", "changes_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Also write the files added, changed and removed against the previous output as JSON here "
              "(e.g. dist.changes.json beside the output); a skipped build writes empty lists.")
@click.option("--engine", type=click.Choice(ENGINES), default="local", show_default=True,
              help="Where the render tasks run: local (--workers processes on this machine), threads (--workers "
              "threads of the build process: about a quarter less memory, slower; docs/scaling.md) or dask (the "
              "workers of an existing Dask distributed scheduler; pip install 'company-ipo-api[dask]'). Same bytes "
              "every way.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="The Dask scheduler for --engine dask, e.g. tcp://10.0.0.5:8786; its workers must see the "
              "output's parent folder at the same path (docs/scaling.md).")
@click.option("--site-url", envvar="COMPANY_IPO_API_SITE_URL", default=None, callback=lambda _c, _p, v: _site_url(v),
              help="The site's absolute base URL (https://api.example.com): the feeds' links are absolute, as feed "
              "readers prefer. Default: site paths.")
def build(data_dir: Path, out_dir: Path, quiet: bool, force: bool, workers: int | None,
          changes_path: Path | None, engine: str, scheduler: str | None, site_url: str | None) -> None:
    """Validate the dataset and write the whole API as static files."""
    from generator.dataset.load import DataError
    from generator.hosts.limits import fit_summary
    from generator.output.writer import Changes, OutputError
    from generator.pipeline.build import BuildConfig
    from generator.pipeline.build import build as run_build
    from generator.pipeline.failures import cause_of

    def progress(message: str) -> None:
        if not quiet:
            click.echo(f"  {message}", err=True)

    def failed(error: Exception) -> None:  # at once: before the build stops its workers and clears its staging
        known = isinstance(error, (DataError, OutputError))  # else the traceback follows the cleanup
        click.echo(f"Error: {error if known else 'build failed: ' + cause_of(error)}", err=True)

    try:
        report = run_build(BuildConfig(data_dir, out_dir, force=force, workers=workers, engine=engine,
                                       scheduler=scheduler, site_url=site_url), progress, failed)
    except (DataError, OutputError):  # a failed render task (``TaskError``) too
        sys.exit(1)  # reported by ``failed``
    changes = report.changes if report.changes is not None else Changes([], [], [])
    if changes_path is not None:
        _write_atomically(changes_path, json.dumps(changes.as_json(), indent=1) + "\n")
    if quiet:
        return
    stages = ", ".join(f"{name} {seconds:.2f}s" for name, seconds in report.stages.items())
    click.echo(f"built {out_dir}: {report.files} files, {report.bytes:,} bytes, {report.written} written "
               f"({report.files - report.written} unchanged) in {report.seconds:.2f}s [{stages}]")
    for endpoint, files in sorted(report.files_by_endpoint.items()):
        click.echo(f"  {endpoint:<28} {files:>8} files {report.bytes_by_endpoint[endpoint]:>14,} bytes")
    click.echo(f"changes: {changes.summary()}" + ("" if report.changes is not None else " (build skipped)"))
    files, size = report.published
    click.echo(f"hosts: {files:,} files and {size:,} bytes published (without the generator's dotfiles); "
               f"{fit_summary(files, size)}")
    click.echo(f"serve it: python -m generator serve --dir {out_dir} --port 8000")


@main.command()
@click.option("--companies", type=click.IntRange(min=1), required=True, help="Number of companies to draw.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed; same seed, same bytes.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Folder to write the dataset into (CSV files + dataset.json).")
def synth(companies: int, seed: int, out_dir: Path) -> None:
    """Write a synthetic canonical dataset of any size, for benchmarks and scale tests."""
    from generator.synth.dataset import synthesize

    counts = synthesize(out_dir, companies=companies, seed=seed)
    click.echo(f"wrote {out_dir}: " + ", ".join(f"{name} {rows}" for name, rows in counts.items()))


@main.command()
@click.option("--dir", "root", type=click.Path(path_type=Path, exists=True, file_okay=False), default=DEFAULT_OUT,
              show_default=True, help="Built output folder to serve.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--quiet", is_flag=True, help="Do not log requests.")
@click.option("--rewrite-only", is_flag=True,
              help="Answer as a host with rewrite rules only (Netlify without edge functions, nginx): no front door.")
@click.option("--keys", "digests", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="Ask for an API key: a file of the SHA-256 digests of the valid keys (new-key prints them), read "
              "on every request. Without it no key is asked for (development).")
def serve(root: Path, host: str, port: int, quiet: bool, rewrite_only: bool, digests: Path | None) -> None:
    """Serve a build locally: the query front door in front of the files (or, with --rewrite-only, Netlify's
    rewrite rules alone); with --keys, only to clients that send a key."""
    from generator.frontdoor.keys import DigestFileError
    from generator.hosts.serve import make_server

    try:
        server = make_server(root, host, port, quiet, rewrite_only, digests)
    except DigestFileError as error:
        raise click.ClickException(f"--keys: {error}: not started") from None
    asked = ""
    if digests is not None:
        held = len(server.site.keys.at_start)  # type: ignore[attr-defined]
        asked = f", asking for a key listed in {digests} ({held} digests{'' if held else ': every key is refused'})"
    click.echo(f"serving {root} at http://{host}:{server.server_port}/{asked} (Ctrl+C to stop)", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@main.command("new-key")
@click.option("--label", default="", help="A note for the digest line (who the key is for), after a #.")
def new_key(label: str) -> None:
    """Make a new API key: print the key (shown once, stored nowhere) and the digest line to add to the site's
    API_KEY_DIGESTS (Netlify environment variable, Cloudflare secret) or to the file serve --keys reads."""
    from generator.frontdoor import keys

    key = keys.new_key()
    click.echo(f"key: {key}")
    click.echo(f"digest line: {keys.digest(key)}" + (f"  # {label}" if label else ""))


@main.command("data-dictionary")
@click.option("--check", "check_only", is_flag=True, help="Exit non-zero if the file differs.")
@click.option("--path", type=click.Path(path_type=Path), default=DEFAULT_DATA / "README.md", show_default=True)
def data_dictionary(check_only: bool, path: Path) -> None:
    """Write (or check) the data dictionary generated from the input-table models."""
    from generator.dataset.dictionary import data_dictionary as render

    write_or_check(path, render(), check_only, "data-dictionary")


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


@main.command("import")
@click.argument("source")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option("--into", "into", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Canonical folder to create or update (records are merged, never duplicated).")
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
def import_(source: str, files: tuple[Path, ...], into: Path, quiet: bool) -> None:
    """Import public data files (SOURCE: auto, edgar, edgar-sectors, nasdaq, iposcoop, cbinsights, maven,
    crunchbase, crunchbase-investments) into a canonical folder; prints what was merged and what did not map."""
    from generator.dataset.load import DataError
    from generator.importers import import_files
    from generator.importers.base import SourceError
    from generator.importers.report import render

    try:
        result = import_files(source, list(files), into, progress=(lambda _: None) if quiet else
                              (lambda message: click.echo(f"  {message}", err=True)))
    except (SourceError, DataError) as error:
        raise _fail_on_data_error(error) from None
    if not quiet:
        click.echo(render(result, into))


@main.command()
@click.argument("sources", nargs=-1, required=True)
@click.option("--into", "into", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Raw folder to add this run's dated folder to (what `import auto RAW` reads).")
@click.option("--user-agent", "agent", envvar=["COMPANY_IPO_API_USER_AGENT", "SEC_USER_AGENT"], default=None,
              help="Names the operator, with a contact e-mail address, as the SEC asks (e.g. 'Company Name "
              "admin@example.com'; Nasdaq gets it as 'Mozilla/5.0 (compatible; ...)'). Default: "
              "$COMPANY_IPO_API_USER_AGENT or $SEC_USER_AGENT; required.")
@click.option("--rate", type=click.FloatRange(min=0.01, max=10.0), default=10.0, show_default=True,
              help="Requests a second at most (the SEC allows 10).")
@click.option("--since", type=click.DateTime(["%Y-%m-%d", "%Y-%m"]), default=None,
              help="First day of daily indexes, first month of Nasdaq calendars (YYYY-MM: its first day) and "
              "quarter of Financial Statement Data Sets. "
              "Default: the day after the newest index the raw folder has, else a week back; the calendars of "
              "the months after the newest one held and of those not yet final, else the previous month.")
@click.option("--until", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="Last day of daily indexes (and month of calendars). Default: today (UTC).")
@click.option("--base-url", "base_urls", multiple=True, envvar="COMPANY_IPO_API_BASE_URL",
              help="Fetch from a mirror: URL (every site) or SITE=URL (www.sec.gov, data.sec.gov, api.nasdaq.com); "
              "repeatable.")
@click.option("--max-body-mib", "max_body", type=click.IntRange(min=1), default=256, show_default=True,
              help="MiB a response's body may have, on the wire and once decompressed; a larger one fails its URL.")
@click.option("--deadline", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds a request may take, first byte sent to last byte received; a slower one fails its URL.")
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
def fetch(sources: tuple[str, ...], into: Path, agent: str | None, rate: float, since: dt.datetime | None,
          until: dt.datetime | None, base_urls: tuple[str, ...], max_body: int, deadline: float, quiet: bool) -> None:
    """Download public sources (SOURCE: edgar, or edgar-tickers, edgar-daily-index, edgar-submissions,
    edgar-companyfacts; nasdaq, or nasdaq-calendar, nasdaq-screener; edgar-financial-statements, asked for by name)
    into a raw folder, politely and incrementally; a run that fails keeps nothing and names each URL that failed."""
    from generator.fetch.client import FetchError
    from generator.fetch.run import FetchConfig
    from generator.fetch.run import fetch as run_fetch

    try:
        result = run_fetch(FetchConfig(list(sources), into, agent, rate, since and since.date(),
                                       until and until.date(), list(base_urls), max_body=max_body << 20,
                                       deadline=deadline), None if quiet else sys.stderr)
    except FetchError as error:
        raise click.ClickException(str(error)) from None
    for line in result.failures:
        click.echo(f"fetch failed: {line}", err=True)
    if result.run is None:
        raise click.ClickException(f"{len(result.failures)} URL(s) failed; {into} is as the last good run left it")
    if not quiet:
        click.echo(f"fetched into {result.run}: {result.total.summary()}")


@main.group()
def changes() -> None:
    """The dataset's change events: record what changed between two snapshots (docs/changes.md)."""


@changes.command("record")
@click.option("--previous", type=click.Path(path_type=Path, exists=True), required=True,
              help="The previous snapshot: a dataset folder, or the CSV dataset archive a published site serves at "
              "/api/export?format=csv.")
@click.option("--data", "data_dir", type=click.Path(path_type=Path, exists=True, file_okay=False), default=DEFAULT_DATA,
              show_default=True, help="The new snapshot, whose changes.csv is written.")
@click.option("--quiet", is_flag=True)
def changes_record(previous: Path, data_dir: Path, quiet: bool) -> None:
    """Append to DATA's changes.csv the companies added, renamed, removed, delisted or closed and the valuations
    changed since PREVIOUS, dated with DATA's as-of date; carry over the recorded events within the window."""
    from generator.dataset.load import DataError
    from generator.events.changes import record

    try:
        done = record(previous, data_dir)
    except DataError as error:
        raise _fail_on_data_error(error) from None
    if not quiet:
        added = ", ".join(f"{n} {kind}" for kind, n in sorted(done.added.items())) or "none"
        click.echo(f"changes.csv: {sum(done.added.values())} event(s) added ({added}); {done.carried} carried over, "
                   f"{done.dropped} dropped (older than the window); {done.rows} row(s)"
                   + ("" if done.written else "; unchanged"))


@main.group()
def webhooks() -> None:
    """Signed delivery of the published change events to the URLs of a subscriptions file."""


@webhooks.command("deliver")
@click.option("--site", "site", type=click.Path(path_type=Path, exists=True, file_okay=False), required=True,
              help="A built output folder; its api/changes/events.jsonl is read, nothing in it is written.")
@click.option("--subscriptions", "subscriptions", type=click.Path(path_type=Path, dir_okay=False), required=True,
              help="TOML file of subscribers (name, url, secret_env, optional filters); see docs/webhooks.md.")
@click.option("--state", "state", type=click.Path(path_type=Path, dir_okay=False), required=True,
              help="JSON file of what each subscriber has had; created if missing, rewritten atomically after "
              "each delivery. Must be outside --site.")
@click.option("--attempts", type=click.IntRange(min=1, max=20), default=5, show_default=True,
              help="Attempts per event at most (the first one included).")
@click.option("--backoff", type=click.FloatRange(min=0.0), default=1.0, show_default=True,
              help="Backoff factor in seconds: the waits between attempts are 0, 2x, 4x, 8x... this.")
@click.option("--max-wait", type=click.FloatRange(min=0.0), default=60.0, show_default=True,
              help="Seconds one wait may last at most, a receiver's Retry-After included.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds to connect, and seconds to wait for the answer, per request.")
@click.option("--quiet", is_flag=True, help="Print nothing but failures.")
def webhooks_deliver(site: Path, subscriptions: Path, state: Path, attempts: int, backoff: float, max_wait: float,
                     timeout: float, quiet: bool) -> None:
    """Deliver to each subscriber the matching events it has not yet had, oldest first, one signed POST each."""
    from generator.events.webhooks import DeliveryOptions, WebhookError, deliver

    options = DeliveryOptions(attempts=attempts, backoff=backoff, max_wait=max_wait, timeout=timeout)
    try:
        report = deliver(site, subscriptions, state, options, os.environ)
    except WebhookError as error:
        raise click.ClickException(str(error)) from None
    for line in report.lines():
        if not quiet or line.startswith("FAILED"):
            click.echo(line, err=line.startswith("FAILED"))
    if report.failed:
        raise click.ClickException(f"{len(report.failed)} subscriber(s) stopped on a failed event; "
                                   f"the next run resends from there")


for _command in hosts.commands.values():
    main.add_command(_command)
