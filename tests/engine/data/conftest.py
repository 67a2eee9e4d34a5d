"""Dataset tests write only into temporary folders; built-in digits are generated once."""

import pytest

from engine.data import builtin


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "user-cache"))


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory):
    """A cache root shared by the session (digits are generated into it once)."""
    return tmp_path_factory.mktemp("session-cache")


@pytest.fixture(scope="session")
def digits(session_cache):
    return builtin.ensure("digits", root=session_cache)
