"""Fixtures of the plugin tests (helpers in tests/plugin_kit.py)."""

from plugin_kit import lenet_job  # noqa: F401 - a session fixture shared by the modules
