"""The plugins' error type (no engine import: the protocol stays quick to load)."""


class PluginError(ValueError):
    """Bad input to a plugin: one line naming the plugin's parameter and the cause."""
