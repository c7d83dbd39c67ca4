"""Single resources: the company profile (and, later, investor and industry details)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import NamedTuple

import duckdb
from pydantic import BaseModel
from pydantic_core import to_json

from generator import responses, serialize
from generator.manifest import unit_key
from generator.queries import ROWS_DIGEST, base_meta, read_sql
from generator.registry import DETAIL_ROUTES
from generator.schema import DatasetInfo
from generator.staged import StagedFiles

EDGAR_COMPANY_URL = "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK={cik:010d}"

ANALYSIS_METHODOLOGY = {
    "valuation_to_revenue": "current valuation_usd divided by revenue_usd of the latest fiscal year with revenue; "
    "null without positive revenue or without a current valuation",
    "revenue_growth": "latest fiscal-year revenue divided by the previous fiscal year's revenue, minus 1",
    "sector_rank": "rank by current valuation_usd (highest = 1) among companies of the same sector with one",
    "sector_percentile": "share of the sector's valued companies whose valuation is at or below this one",
    "months_since_last_round": "whole calendar months from the latest funding round to the dataset's as_of date",
    "secondary_premium_to_last_round": "latest monthly secondary implied valuation divided by the latest "
    "disclosed round post-money valuation, minus 1",
}


WANTED_SHARE = 8
"""``Rows.want`` fetches only the wanted groups when they are fewer than one in this many."""


class Rows:
    """The rows of a query as tuples, in query order, grouped by one column (left out of the rows). With a
    grouping column, each group's digest (``ROWS_DIGEST``) comes from SQL at once and its rows are fetched only
    when a profile that needs them is rendered (``of``): a rebuild that renders few profiles never turns every
    row into Python objects. ``records`` makes dicts only for the profiles that are rendered."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None, by: str | None = None,
        fits: type[BaseModel] | None = None, added: tuple[str, ...] = (),
    ) -> None:
        self._con, self._sql, self._params, self._by = con, sql, params or {}, by
        self._fits, self._added = fits, added
        self._groups: dict[object, list[tuple]] | None = None
        self._wanted: list[object] | None = None
        self._floats: list[int] = []
        self.names: list[str] = []
        self.types: dict[str, object] = {}
        """Column -> DuckDB type (known once rows are fetched)."""
        self.plain = False
        """Whether each row, as a dict, serializes as ``fits`` (with the fields ``added``) writes it
        (``serialize.fits``; known once rows are fetched): its floats must be checked (``finite``)."""
        self.digests: dict[object, str] = {}
        if by is not None:
            found = con.execute(f"SELECT {by}, {ROWS_DIGEST} FROM ({sql}) r GROUP BY {by}", self._params)
            self.digests = dict(found.fetchall())
        else:
            self._fetch()

    def want(self, keys: set[object]) -> None:
        """Fetch only these groups when rows are first needed, if they are few (a rebuild that renders a few
        profiles); else every group."""
        if self._by is not None and self._groups is None and len(keys) * WANTED_SHARE < len(self.digests):
            self._wanted = sorted(keys)  # type: ignore[type-var]

    def _fetch(self) -> dict[object, list[tuple]]:
        sql, params = self._sql, self._params
        if self._wanted is not None:  # a WHERE keeps the rows' order (DuckDB's order preservation)
            sql = f"SELECT * FROM ({sql}) r WHERE list_contains($wanted, r.{self._by})"
            params = {**params, "wanted": self._wanted}
        result = self._con.execute(sql, params)
        names = [d[0] for d in result.description]
        self.types = {d[0]: d[1] for d in result.description}
        kept = [(d[0], d[1]) for d in result.description if d[0] != self._by]
        self.plain = self._fits is not None and serialize.fits(self._fits, kept, self._added)
        self._floats = [i for i, (_, kind) in enumerate(kept) if getattr(kind, "id", None) in ("double", "float")]
        rows = result.fetchall()
        groups: dict[object, list[tuple]] = defaultdict(list)
        if self._by is None:
            self.names = names
            groups[None] = rows
        else:
            at = names.index(self._by)
            self.names = names[:at] + names[at + 1:]
            for row in rows:
                groups[row[at]].append(row[:at] + row[at + 1:])
        self._groups = groups
        return groups

    def of(self, key: object) -> list[tuple]:
        groups = self._groups if self._groups is not None else self._fetch()
        return groups.get(key, [])

    def digest(self, key: object) -> str:
        """The digest of one group's rows (empty for a group without rows)."""
        return self.digests.get(key, "")

    def records(self, rows: list[tuple]) -> list[dict]:
        return [dict(zip(self.names, row, strict=True)) for row in rows]

    def finite(self, rows: list[tuple]) -> bool:
        """Whether every float of these rows is finite."""
        return all(row[i] is None or math.isfinite(row[i]) for row in rows for i in self._floats)

    def written(self, rows: list[tuple]) -> bool:
        """Whether these rows, as dicts, serialize as their model writes them (``plain``, floats finite)."""
        return self.plain and self.finite(rows)


def _grouped(
    con: duckdb.DuckDBPyConnection, name: str, params: dict | None = None, by: str = "company_id",
    fits: type[BaseModel] | None = None, added: tuple[str, ...] = (),
) -> Rows:
    """Rows of a query file grouped by one column (removed from the rows), in query order; see ``Rows``."""
    return Rows(con, read_sql(name), params, by, fits, added)


def _body(model: type[BaseModel], value: dict, plain: bool) -> bytes:
    """A resource's JSON: ``value`` (a dict in the model's field order) written straight by pydantic's JSON writer
    where every part is known to serialize as the model's fields (``plain``: a third of the time of validating
    it), else validated by the model and written by it (which refuses what it must, a float that is not finite
    say)."""
    return to_json(value) if plain else serialize.row(model.model_validate(value))


class Detail(NamedTuple):
    """One resource to render: the keys it is published under (id first, or slug), what it is made from (its own
    row and the digests of its groups of rows: their ``repr`` keys its unit, equal inputs render equal files),
    how to make its response (its JSON), and its groups' key in ``sources``, the grouped rows ``make`` reads."""

    keys: tuple[str, ...]
    inputs: tuple[object, ...]
    make: Callable[[], bytes]
    group: object = None
    sources: tuple[Rows, ...] = ()


_COMPANY_COLUMNS = (
    *((responses.CompanyProfile, name, name) for name in (
        "id", "slug", "name", "sector", "sector_name", "country", "country_name", "status", "founded_year",
        "headquarters_city", "website", "description", "valuation_usd", "valuation_date", "valuation_basis",
        "valuation_currency_converted_from")),
    *((responses.Listing, name, name) for name in (
        "ticker", "exchange", "exchange_name", "cik", "listing_date", "listing_kind")),
    (responses.Acquisition, "acquirer", "acquirer"), (responses.Acquisition, "acquired_date", "acquired_date"),
    (responses.Acquisition, "price_usd", "acquisition_price_usd"),
)
"""(model, field, column of the companies query) of every profile value taken from the company's own row."""


def company_profiles(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> Iterator[Detail]:
    """Every company's profile, keyed by (id, slug)."""
    financials = _grouped(con, "company_financials", fits=responses.FinancialYear)
    rounds = _grouped(con, "company_rounds", fits=responses.Round)
    ipos = _grouped(con, "company_ipos", fits=responses.IpoRecord)
    analysis = _grouped(con, "company_analysis", {"as_of": info.as_of}, fits=responses.Analysis,
                        added=("methodology",))
    found = con.execute("SELECT company_id, valuation_is_current FROM company_valuation")
    current_plain = serialize.written_alike(found.description[1][1], bool, top=True)
    current = dict(found.fetchall())
    companies = Rows(con, """
        SELECT c.*, s.name AS sector_name, n.name AS country_name, e.name AS exchange_name
        FROM companies c JOIN sectors s ON s.slug = c.sector JOIN countries n ON n.code = c.country
        LEFT JOIN exchanges e ON e.slug = c.exchange ORDER BY c.id
    """)
    plain = current_plain and all(serialize.written_alike(companies.types[column], model.model_fields[name].annotation,
                                                          top=True) for model, name, column in _COMPANY_COLUMNS)
    at_id, at_slug = companies.names.index("id"), companies.names.index("slug")
    sources = (financials, rounds, ipos, analysis)
    for row in companies.of(None):
        key = row[at_id]
        inputs = (row, *(source.digest(key) for source in sources), current[key])

        def make(row: tuple = row, key: object = key) -> bytes:
            groups = [source.of(key) for source in sources]
            value = _company_profile(companies.records([row])[0], financials.records(groups[0]),
                                     rounds.records(groups[1]), ipos.records(groups[2]),
                                     analysis.records(groups[3])[0], current[key])
            written = plain and companies.finite([row]) and all(
                source.written(group) for source, group in zip(sources, groups, strict=True))
            return _body(responses.CompanyProfile, value, written)

        yield Detail((str(key), row[at_slug]), inputs, make, key, sources)


def _company_profile(
    c: dict, financials: list[dict], company_rounds: list[dict], ipos: list[dict], analysis: dict, current: bool
) -> dict:
    """A company's profile as a dict in ``responses.CompanyProfile``'s field order (its parts in theirs)."""
    disclosed = [r for r in company_rounds if r["amount_usd"] is not None]
    amounts = [r["amount_usd"] for r in disclosed if r["transaction"] == "equity"]
    others = [r["amount_usd"] for r in disclosed if r["transaction"] != "equity"]
    investor_ids = {i["id"] for r in company_rounds for i in r["investors"]}
    latest = company_rounds[0] if company_rounds else None
    return {
        "id": c["id"], "slug": c["slug"], "name": c["name"],
        "sector": c["sector"], "sector_name": c["sector_name"], "country": c["country"],
        "country_name": c["country_name"], "status": c["status"], "founded_year": c["founded_year"],
        "headquarters_city": c["headquarters_city"], "website": c["website"], "description": c["description"],
        "valuation_usd": c["valuation_usd"], "valuation_date": c["valuation_date"],
        "valuation_basis": c["valuation_basis"],
        "listing": {
            "ticker": c["ticker"], "exchange": c["exchange"], "exchange_name": c["exchange_name"], "cik": c["cik"],
            "edgar_url": EDGAR_COMPANY_URL.format(cik=c["cik"]) if c["cik"] else None,
            "listing_date": c["listing_date"], "listing_kind": c["listing_kind"],
        },
        "acquisition": {
            "acquirer": c["acquirer"], "acquired_date": c["acquired_date"], "price_usd": c["acquisition_price_usd"],
        } if c["acquirer"] else None,
        "financials": financials,
        "funding": {
            "total_raised_usd": sum(amounts) if amounts else None,
            "rounds_count": len(company_rounds),
            "investors_count": len(investor_ids),
            "last_round_stage": latest["stage"] if latest else None,
            "last_round_date": latest["announced_date"] if latest else None,
            "rounds": company_rounds,
            "other_transactions_usd": sum(others) if others else None,
        },
        "ipos": ipos,
        "analysis": {**analysis, "methodology": ANALYSIS_METHODOLOGY},
        "valuation_is_current": current,
        "valuation_currency_converted_from": c["valuation_currency_converted_from"],
    }


def investor_profiles(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> Iterator[Detail]:
    """Every investor with its portfolio and the rounds it led, keyed by slug."""
    portfolio = _grouped(con, "investor_portfolio", by="investor_id", fits=responses.PortfolioCompany)
    led = _grouped(con, "investor_rounds_led", by="investor_id", fits=responses.LedRound)
    investors = Rows(con, read_sql("investors") + " ORDER BY i.id", fits=responses.InvestorProfile,
                     added=("portfolio", "rounds_led"))
    at_id, at_slug = investors.names.index("id"), investors.names.index("slug")
    for row in investors.of(None):
        key = row[at_id]
        inputs = (row, portfolio.digest(key), led.digest(key))

        def make(row: tuple = row, key: object = key) -> bytes:
            owned, leads = portfolio.of(key), led.of(key)
            value = {**investors.records([row])[0], "portfolio": portfolio.records(owned),
                     "rounds_led": led.records(leads)}
            written = investors.written([row]) and portfolio.written(owned) and led.written(leads)
            return _body(responses.InvestorProfile, value, written)

        yield Detail((row[at_slug],), inputs, make, key, (portfolio, led))


def industry_details(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> Iterator[Detail]:
    """Every sector's aggregates with its companies, countries and funding by year, keyed by slug."""
    companies = _grouped(con, "industry_companies", by="sector", fits=responses.ValuedCompany)
    countries = _grouped(con, "industry_countries", by="sector", fits=responses.CountryCount)
    funding = _grouped(con, "industry_funding", by="sector", fits=responses.YearAmount)
    industries = Rows(con, read_sql("industries") + " ORDER BY s.slug", fits=responses.IndustryDetail,
                      added=("companies_by_country", "funding_by_year", "companies"))
    at_slug = industries.names.index("slug")
    sources = (countries, funding, companies)
    for row in industries.of(None):
        slug = row[at_slug]
        inputs = (row, *(source.digest(slug) for source in sources))

        def make(row: tuple = row, slug: object = slug) -> bytes:
            groups = [source.of(slug) for source in sources]
            value = {**industries.records([row])[0], **{
                name: source.records(group) for name, source, group in zip(
                    ("companies_by_country", "funding_by_year", "companies"), sources, groups, strict=True)}}
            written = industries.written([row]) and all(
                source.written(group) for source, group in zip(sources, groups, strict=True))
            return _body(responses.IndustryDetail, value, written)

        yield Detail((slug,), inputs, make, slug, sources)


def detail_files(con: duckdb.DuckDBPyConnection, info: DatasetInfo, files: StagedFiles) -> dict[str, list[str]]:
    """Write every profile (each carried over from the previous output where its unit ``<route>/<first key>``,
    its input rows and the dataset's metadata, is unchanged); return example URLs per detail route."""
    meta = base_meta(info)
    about = info.model_dump_json()
    examples: dict[str, list[str]] = {}
    for route in DETAIL_ROUTES:
        builder: Callable[..., Iterator[Detail]] = globals()[route.builder]
        todo: list[Detail] = []  # what renders, known before any group's rows are fetched (see ``Rows.want``)
        for detail in builder(con, info):
            keys = detail.keys
            if len(examples.setdefault(route.name, [])) < len(keys):
                examples[route.name] = [f"{route.path}/{key}" for key in keys]
            if files.render(f"{route.name}/{keys[0]}", unit_key(about, repr(detail.inputs))):
                todo.append(detail._replace(inputs=()))
        for source in {id(s): s for detail in todo for s in detail.sources}.values():
            source.want({detail.group for detail in todo})
        for detail in todo:
            keys, unit = detail.keys, f"{route.name}/{detail.keys[0]}"
            body = serialize.resource(detail.make(), {"meta": meta, "links": {"self": route.file_path(keys[-1])}})
            files.write(route.file_path(keys[0]), body, unit)
            for key in keys[1:]:  # the same file under its other names (a profile by id and by slug)
                files.alias(route.file_path(key), route.file_path(keys[0]), unit)
    return examples
