"""Search tests: a private cache folder per test and small projects to mutate and train."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from postgres_kit import Cluster, Unavailable

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "user-cache"))


@pytest.fixture
def iris_file(tmp_path):
    """A copy of the iris sample (a 4-100-3 MLP; an epoch takes a fraction of a second)."""
    target = tmp_path / "iris" / "iris.ncproj"
    target.parent.mkdir()
    shutil.copyfile(ROOT / "projects" / "iris.ncproj", target)
    return target


@pytest.fixture(scope="session")
def postgres_cluster():
    """One throwaway PostgreSQL server for the session (skipped, with the reason, where none
    can be started)."""
    try:
        cluster = Cluster.start_new()
    except Unavailable as exc:
        pytest.skip(f"no PostgreSQL server: {exc}")
    yield cluster
    cluster.remove()


@pytest.fixture
def postgres_url(postgres_cluster):
    """A new empty database on the session's server."""
    return postgres_cluster.new_database()


@pytest.fixture
def own_postgres():
    """A server of the test's own, which it may stop and start."""
    try:
        cluster = Cluster.start_new()
    except Unavailable as exc:
        pytest.skip(f"no PostgreSQL server: {exc}")
    yield cluster
    cluster.remove()
