"""Profiles that render alone (a rebuild that changed a few records) fetch only their own groups of rows, and
make exactly the bodies they make from every group (the order of the rows within a group included)."""

from __future__ import annotations

import duckdb
import pytest

from generator import details, queries
from generator.load import load

from .conftest import EMBEDDED

BUILDERS = ("company_profiles", "investor_profiles", "industry_details")


@pytest.fixture(scope="module")
def loaded() -> tuple[duckdb.DuckDBPyConnection, object]:
    con = duckdb.connect()
    info = load(EMBEDDED, con)
    con.execute(queries.read_sql("views"))
    return con, info


def _count(digest: str) -> int:
    """The number of rows a group's digest (``queries.rows_digest``) counts."""
    return int(digest.split(":")[0]) if digest else 0


@pytest.mark.parametrize("builder", BUILDERS)
def test_a_few_profiles_fetch_their_groups_only_and_render_the_same(loaded: tuple, builder: str) -> None:
    con, info = loaded
    make = getattr(details, builder)
    everything = {d.keys[0]: d.make().model_dump_json() for d in make(con, info)}
    chosen = list(make(con, info))
    # the ones with the most rows in their groups, so that the order within a group is put to the test
    chosen.sort(key=lambda d: (-sum(_count(s.digest(d.group)) for s in d.sources), d.keys[0]))
    chosen = chosen[:2]
    sources = {id(s): s for d in chosen for s in d.sources}.values()
    for source in sources:
        source.want({d.group for d in chosen})
    large = [source for source in sources if len(source.digests) > 2 * details.WANTED_SHARE]
    assert large and all(source._wanted is not None for source in large)  # the groups alone are fetched
    for detail in chosen:
        assert detail.make().model_dump_json() == everything[detail.keys[0]]
    assert all(set(source._groups or {}) <= {d.group for d in chosen} for source in sources)


def test_many_profiles_fetch_every_group(loaded: tuple) -> None:
    con, info = loaded
    all_details = list(details.company_profiles(con, info))
    for source in all_details[0].sources:
        source.want({d.group for d in all_details})
        assert source._wanted is None
