"""The synthetic dataset generator: valid, deterministic for a seed, and in realistic proportion."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.dataset.load import validate
from generator.dataset.schema import TABLES, IpoStatus, OfferingKind
from generator.synth.dataset import AS_OF, synthesize

COMPANIES = 300

ROWS_PER_COMPANY = {
    "financials": (0.5, 1.5),
    "investors": (0.7, 0.8),
    "funding_rounds": (1.0, 2.2),
    "round_investors": (2.0, 4.5),
    "ipos": (0.15, 0.4),
    "offerings": (0.01, 0.08),
    "secondary_prices": (0.1, 1.6),
    "filings": (0.6, 2.2),
    "news": (1.8, 3.8),
}
"""Expected rows per company at 300 companies (observed over 40 seeds, with a margin)."""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    out = tmp_path_factory.mktemp("synth") / "data"
    return out, synthesize(out, companies=COMPANIES, seed=7)


def _rows(data: Path, table: str) -> list[dict[str, str]]:
    with open(data / f"{table}.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _tree(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_synthetic_dataset_passes_validation(dataset: tuple[Path, dict[str, int]]) -> None:
    data, counts = dataset
    info, tables = validate(data)
    assert info.as_of == AS_OF
    assert {name: len(parsed.rows) for name, parsed in tables.items()} == counts
    assert counts["companies"] == COMPANIES


def test_reference_tables_are_the_fixture_ones(dataset: tuple[Path, dict[str, int]]) -> None:
    data, _ = dataset
    tiny = Path(__file__).parent / "fixtures" / "tiny"
    for name in ("sectors", "countries", "exchanges"):
        assert (data / f"{name}.csv").read_bytes() == (tiny / f"{name}.csv").read_bytes()


def test_same_seed_gives_identical_bytes_and_another_seed_differs(tmp_path: Path) -> None:
    synthesize(tmp_path / "a", companies=COMPANIES, seed=11)
    synthesize(tmp_path / "b", companies=COMPANIES, seed=11)
    synthesize(tmp_path / "c", companies=COMPANIES, seed=12)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert (tmp_path / "a" / "companies.csv").read_bytes() != (tmp_path / "c" / "companies.csv").read_bytes()


def test_rows_are_in_realistic_proportion(dataset: tuple[Path, dict[str, int]]) -> None:
    _, counts = dataset
    for table, (low, high) in ROWS_PER_COMPANY.items():
        assert low <= counts[table] / COMPANIES <= high, (table, counts[table])


def test_every_status_and_kind_occurs(dataset: tuple[Path, dict[str, int]]) -> None:
    data, _ = dataset
    assert {r["status"] for r in _rows(data, "ipos")} == set(IpoStatus.__args__)
    assert {r["kind"] for r in _rows(data, "offerings")} == set(OfferingKind.__args__)
    statuses = Counter(r["status"] for r in _rows(data, "companies"))
    assert set(statuses) == {"public", "private", "acquired", "closed"}
    assert statuses["private"] > statuses["public"] > statuses["closed"]


def test_shapes_are_skewed(dataset: tuple[Path, dict[str, int]]) -> None:
    data, _ = dataset
    companies = _rows(data, "companies")
    valuations = sorted(int(r["valuation_usd"]) for r in companies if r["valuation_usd"])
    assert valuations[-1] > 100 * valuations[len(valuations) // 2]  # power law: the top dwarfs the median
    countries = Counter(r["country"] for r in companies)
    assert countries.most_common(1)[0][0] == "us"
    portfolios = sorted(Counter(r["investor_id"] for r in _rows(data, "round_investors")).values())
    assert portfolios[len(portfolios) // 2] <= 2 and portfolios[-1] >= 10  # most back one or two, a few many


def test_rows_are_sorted_by_key(dataset: tuple[Path, dict[str, int]]) -> None:
    data, _ = dataset
    for table in TABLES:
        fields = table.model.model_fields
        rows = _rows(data, table.name)

        def key(row: dict[str, str], table=table, fields=fields) -> tuple:
            return tuple(int(row[c]) if fields[c].annotation is int else row[c] for c in table.key)

        assert [key(r) for r in rows] == sorted(key(r) for r in rows), table.name


def test_cli_synth(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["synth", "--companies", "40", "--seed", "3", "--out", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    assert "companies 40" in result.output
    validate(tmp_path / "d")
