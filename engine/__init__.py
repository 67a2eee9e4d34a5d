"""NeuroCanvas engine: the headless core (no Qt below this package)."""

__version__ = "0.1.0"
