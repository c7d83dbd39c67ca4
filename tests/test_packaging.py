"""A built wheel carries the templates and SQL: installed into a fresh virtualenv, it builds the fixture dataset."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import ROOT, TINY


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_carries_templates_and_sql(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for template in (ROOT / "templates").glob("*.j2"):
        assert f"generator/_templates/{template.name}" in names
    for sql in (ROOT / "generator" / "api" / "sql").glob("*.sql"):
        assert f"generator/api/sql/{sql.name}" in names
    for script in (ROOT / "generator" / "frontdoor" / "js").glob("*.mjs"):  # the cloudflare-worker command's source
        assert f"generator/frontdoor/js/{script.name}" in names
    for module in (ROOT / "generator").rglob("*.py"):  # every package, none left out of pyproject's list
        assert module.relative_to(ROOT).as_posix() in names, module


def test_an_installed_wheel_builds(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)  # dependencies from the system
    python = env_dir / "bin" / "python"
    # without the caller's PYTHONPATH: a source tree on it (with its egg-info) reads as already installed to pip
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--quiet", str(wheel)], capture_output=True, text=True, timeout=600, env=env)
    if install.returncode != 0 and "no such option: --python" in install.stderr:
        pytest.skip("pip older than 22.3 cannot install into another environment")
    assert install.returncode == 0, install.stdout + install.stderr
    where = subprocess.run([str(python), "-c", "import generator, generator.hosts.templates as t; "
                            "print(generator.__file__); print(t.TEMPLATE_DIR)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    package, templates = where.stdout.split()
    assert Path(package).is_relative_to(env_dir) and Path(templates).is_relative_to(env_dir), where.stdout
    out = tmp_path / "dist"
    built = subprocess.run([str(python), "-m", "generator", "build", "--data", str(TINY), "--out", str(out),
                            "--quiet", "--workers", "0"], capture_output=True, text=True, cwd=tmp_path, env=env,
                           timeout=600)
    assert built.returncode == 0, built.stderr
    assert (out / "index.html").is_file() and (out / "api" / "companies" / "1.json").is_file()
