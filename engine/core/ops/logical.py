"""Placeholder: filled by its owner."""

__all__: list[str] = []
