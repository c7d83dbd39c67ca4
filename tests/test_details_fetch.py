"""Profiles: written straight by pydantic's JSON writer exactly as their models write them (through the model
where a value might not be: a float that is not finite, a type that serializes otherwise); those that render
alone (a rebuild that changed a few records) fetch only their own groups of rows, and make exactly the bodies
they make from every group (the order of the rows within a group included)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from generator import details, responses, serialize
from generator.response_base import Out

BUILDERS = ("company_profiles", "investor_profiles", "industry_details")


def _count(digest: str) -> int:
    """The number of rows a group's digest (``queries.rows_digest``) counts."""
    return int(digest.split(":")[0]) if digest else 0


@pytest.mark.parametrize("builder", BUILDERS)
def test_a_few_profiles_fetch_their_groups_only_and_render_the_same(embedded_db: tuple, builder: str) -> None:
    con, info = embedded_db
    make = getattr(details, builder)
    everything = {d.keys[0]: d.make() for d in make(con, info)}
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
        assert detail.make() == everything[detail.keys[0]]
    assert all(set(source._groups or {}) <= {d.group for d in chosen} for source in sources)


def test_many_profiles_fetch_every_group(embedded_db: tuple) -> None:
    con, info = embedded_db
    all_details = list(details.company_profiles(con, info))
    for source in all_details[0].sources:
        source.want({d.group for d in all_details})
        assert source._wanted is None


@pytest.mark.parametrize("builder", BUILDERS)
def test_every_profile_is_written_straight_as_its_model_writes_it(
    embedded_db: tuple, builder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    con, info = embedded_db
    straight: list[bool] = []
    body = details._body

    def recorded(model: type, value: dict, plain: bool) -> bytes:
        straight.append(plain)
        return body(model, value, plain)

    monkeypatch.setattr(details, "_body", recorded)
    model = {"company_profiles": responses.CompanyProfile, "investor_profiles": responses.InvestorProfile,
             "industry_details": responses.IndustryDetail}[builder]
    made = [d.make() for d in getattr(details, builder)(con, info)]
    assert made and all(straight) and len(straight) == len(made)  # the embedded data takes the straight path
    for data in made:  # the model reads each body back and writes it byte for byte
        assert serialize.row(model.model_validate_json(data)) == data


class Ratio(Out):
    x: float | None


def test_a_float_that_is_not_finite_goes_through_the_model_which_refuses_it(embedded_db: tuple) -> None:
    con, _ = embedded_db
    rows = details.Rows(con, "SELECT * FROM (VALUES (1, 'inf'::DOUBLE), (2, 0.5), (3, NULL)) t(k, x)", by="k",
                        fits=Ratio)
    assert [rows.written(rows.of(k)) for k in (1, 2, 3)] == [False, True, True]
    with pytest.raises(ValidationError):
        details._body(Ratio, rows.records(rows.of(1))[0], plain=False)
    assert details._body(Ratio, rows.records(rows.of(2))[0], plain=True) == b'{"x":0.5}'


@pytest.mark.parametrize("sql", [
    "SELECT 1 AS k, 1::DECIMAL(10, 2) AS x",  # a DECIMAL comes out as a string
    "SELECT 1 AS k, 1 AS x",  # an integer where the model writes 1.0
    "SELECT 1 AS k, 0.5::DOUBLE AS y",  # not the model's field
])
def test_columns_that_do_not_serialize_as_the_model_go_through_it(embedded_db: tuple, sql: str) -> None:
    con, _ = embedded_db
    rows = details.Rows(con, sql, by="k", fits=Ratio)
    assert not rows.written(rows.of(1))
