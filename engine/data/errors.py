"""Errors of the dataset layer. Messages name the place: file, line and column."""

from __future__ import annotations


class DatasetError(ValueError):
    """A dataset the engine cannot use: bad CSV, missing or unreadable file, mixed shapes.

    The message names the CSV file, the line (1-based, the header is line 1) and the column, for
    example ``"train.csv", line 7, column 1 (x:image): file not found: ./training/5/0042.png``.
    """


class DownloadError(DatasetError):
    """A built-in dataset could not be downloaded (offline, bad checksum); says how to fix it."""
