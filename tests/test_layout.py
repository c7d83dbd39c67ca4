"""The package layout: each package's docstring says which packages it may import, and no module imports against
it (lazy imports inside functions included); no import cycle between modules; no module grows past ~400 lines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_LEVEL = {"cli", "cli_hosts", "__main__", "__init__"}
"""Modules at the top of ``generator/``: the CLI may import everything."""
MAX_LINES = 420


def _packages(root: Path = ROOT) -> list[str]:
    return sorted(p.name for p in (root / "generator").iterdir() if (p / "__init__.py").is_file())


def _allowed(package: str, root: Path = ROOT) -> set[str]:
    """The packages named after "May import" in the package's docstring (none when it says it imports none)."""
    init = root / "generator" / package / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    found = re.search(r"May\s+import\s(.*?)(?:\n\n|$)", doc, flags=re.S)
    if found is None:
        assert "Imports no other package" in doc, f"generator/{package}/__init__.py does not say what it may import"
        return set()
    return set(re.findall(r"``generator\.(\w+)``", found.group(1)))


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every ``generator.*`` module a file imports (at any depth), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _module_name(path, root).split(".")
    is_package = path.name == "__init__.py"
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("generator")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.startswith("generator"):
                found.append((node.lineno, module))
                found += [(node.lineno, f"{module}.{a.name}") for a in node.names]
    return found


def _package_of(module: str, root: Path = ROOT) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (root / "generator" / parts[1] / "__init__.py").is_file() else None


def _sources(root: Path = ROOT) -> list[Path]:
    return sorted((root / "generator").rglob("*.py"))


def test_every_package_says_what_it_may_import_and_the_order_has_no_cycle() -> None:
    allowed = {package: _allowed(package) for package in _packages()}
    assert {"dataset", "output", "api", "hosts", "pipeline"} <= set(allowed)
    for package, targets in allowed.items():
        assert targets <= set(allowed), f"{package} names a package that does not exist: {targets - set(allowed)}"
    # a layering: repeatedly peel off the packages that import nothing left
    left = dict(allowed)
    while left:
        bottom = [p for p, targets in left.items() if not targets & set(left)]
        assert bottom, f"the allowed imports form a cycle among {sorted(left)}"
        for p in bottom:
            del left[p]


def _wrong_imports(root: Path) -> list[str]:
    allowed = {package: _allowed(package, root) for package in _packages(root)}
    wrong = []
    for path in _sources(root):
        relative = path.relative_to(root / "generator")
        if len(relative.parts) == 1:
            continue  # cli.py and __main__.py sit at the top
        own = relative.parts[0]
        for line, module in _imports(path, root):
            target = _package_of(module, root)
            if module == "generator" or (target is None and module.split(".")[1] in TOP_LEVEL):
                wrong.append(f"{relative}:{line}: imports {module} (the top level)")
            elif target is not None and target != own and target not in allowed[own]:
                wrong.append(f"{relative}:{line}: {own} imports {module}; it may import {sorted(allowed[own])}")
    return wrong


def test_no_module_imports_against_the_order() -> None:
    wrong = _wrong_imports(ROOT)
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle_between_modules() -> None:
    modules = {_module_name(p): p for p in _sources()}
    graph = {
        name: {m for _, m in _imports(path) if m in modules and m != name}
        for name, path in modules.items()
    }
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            # a package's __init__ importing its own modules is how a package re-exports: not a cycle
            if target.startswith(name + ".") or name.startswith(target + "."):
                continue
            if state.get(target) == 1:
                pytest.fail("import cycle: " + " -> ".join([*trail, name, target]))
            if target not in state:
                visit(target, [*trail, name])
        state[name] = 2

    for name in sorted(modules):
        if name not in state:
            visit(name, [])


def test_no_module_over_the_size_limit() -> None:
    big = {
        str(p.relative_to(ROOT)): n for p in _sources()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not big, f"modules over {MAX_LINES} lines (split them): {big}"


def test_the_checker_sees_a_wrong_import(tmp_path: Path) -> None:
    """The order test can fail: a dataset module that imports the registry lazily, as load.py once did."""
    for package, doc in {"dataset": "Imports no other package.", "api": "May import ``generator.dataset``."}.items():
        (tmp_path / "generator" / package).mkdir(parents=True)
        (tmp_path / "generator" / package / "__init__.py").write_text(f'"""{doc}"""\n')
    (tmp_path / "generator" / "api" / "registry.py").write_text("from generator.dataset import schema\n")
    assert _wrong_imports(tmp_path) == []
    (tmp_path / "generator" / "dataset" / "load.py").write_text(
        "def check():\n    from generator.api.registry import ROUTES\n    return ROUTES\n")
    assert _wrong_imports(tmp_path) == [
        "dataset/load.py:2: dataset imports generator.api.registry; it may import []",
        "dataset/load.py:2: dataset imports generator.api.registry.ROUTES; it may import []",
    ]
