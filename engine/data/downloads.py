"""Downloading official dataset archives with SHA-256 checks, and reading their formats.

Archives go to ``<cache root>/downloads/``. A file already there with the right checksum is used
without network access, which is also the way to install a dataset on an offline machine: copy
the official archive into that folder. Nothing is unpickled: CIFAR-10 is read from its *binary*
version, MNIST and Fashion-MNIST from their IDX files.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
import tarfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.core import optional
from engine.data.errors import DownloadError

tqdm = optional.lazy("tqdm")

__all__ = [
    "Archive", "fetch_all", "read_cifar10_binary", "read_idx", "sha256_of",
]  # fmt: skip

TIMEOUT_S = 30
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Archive:
    """One official file: its name, SHA-256, size in bytes and download locations (in order)."""

    filename: str
    sha256: str
    size: int
    urls: tuple[str, ...]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_all(
    dataset: str, archives: tuple[Archive, ...], folder: Path, progress: bool = False
) -> dict[str, Path]:
    """Paths of every archive in ``folder``, downloading the missing ones.

    Raises :class:`DownloadError` naming the files still missing, where they come from and where
    to put them, when the machine is offline or a checksum does not match.
    """
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for archive in archives:
        target = folder / archive.filename
        if target.exists():
            _check_existing(target, archive)
        elif error := _download(archive, target, progress):
            # Stop at the first failure: offline, every further file would wait for time-outs.
            raise DownloadError(_offline_message(dataset, archives, paths, folder, error))
        paths[archive.filename] = target
    return paths


def _check_existing(target: Path, archive: Archive) -> None:
    digest = sha256_of(target)
    if digest != archive.sha256:
        raise DownloadError(
            f'"{target}" has SHA-256 {digest}, but the official {archive.filename} has '
            f"{archive.sha256}: it is incomplete or a different file. Delete it and try again."
        )


def _download(archive: Archive, target: Path, progress: bool) -> str:
    """Download into ``target``; return '' on success, else what went wrong."""
    part = target.with_name(target.name + ".part")
    reasons = []
    for url in archive.urls:
        try:
            digest = _stream(url, part, archive, progress)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            part.unlink(missing_ok=True)
            reasons.append(f"{url}: {getattr(exc, 'reason', None) or exc}")
            continue
        if digest != archive.sha256:
            part.unlink(missing_ok=True)
            reasons.append(f"{url}: SHA-256 {digest} does not match {archive.sha256}")
            continue
        os.replace(part, target)
        return ""
    return reasons[0] if len(reasons) == 1 else f"{reasons[0]}; and {len(reasons) - 1} more"


def _open_url(url: str) -> Any:  # a urllib response; replaced in tests
    return urllib.request.urlopen(url, timeout=TIMEOUT_S)  # noqa: S310 - fixed https/http URLs


def _stream(url: str, part: Path, archive: Archive, progress: bool) -> str:
    digest = hashlib.sha256()
    bar = None
    if progress:
        bar = tqdm.tqdm(
            total=archive.size, unit="B", unit_scale=True, desc=archive.filename, leave=False
        )
    try:
        with _open_url(url) as response, open(part, "wb") as out:
            while chunk := response.read(_CHUNK):
                out.write(chunk)
                digest.update(chunk)
                if bar is not None:
                    bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    return digest.hexdigest()


def _offline_message(
    dataset: str, archives: tuple[Archive, ...], have: dict[str, Path], folder: Path, error: str
) -> str:
    missing = [a for a in archives if a.filename not in have]
    sources = sorted({a.urls[0].rsplit("/", 1)[0] + "/" for a in missing})
    return (
        f"cannot download the {dataset} dataset ({error}); is this machine offline? Copy the "
        f"official files {', '.join(a.filename for a in missing)} (from {', '.join(sources)}) "
        f"into {folder} and run `neurocanvas dataset builtin {dataset}` again (their SHA-256 "
        "checksums are checked). The built-in datasets digits and iris need no download."
    )


def read_idx(data: bytes, source: str = "IDX data") -> np.ndarray:
    """An unsigned-byte IDX array (MNIST's format): magic 0 0 0x08 ndim, big-endian dims, data."""
    if len(data) < 4 or data[:3] != b"\x00\x00\x08" or not 1 <= data[3] <= 4:
        raise DownloadError(f"{source} is not an unsigned-byte IDX file")
    ndim = data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise DownloadError(f"{source}: truncated IDX header")
    dims = struct.unpack(f">{ndim}I", data[4:header])
    count = int(np.prod(dims))
    if len(data) - header != count:
        raise DownloadError(f"{source}: {len(data) - header} data bytes, expected {count}")
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(dims)


def read_idx_gz(path: Path) -> np.ndarray:
    try:
        data = gzip.decompress(path.read_bytes())
    except (OSError, EOFError) as exc:
        raise DownloadError(f'"{path}" is not a valid gzip file ({exc})') from None
    return read_idx(data, f'"{path}"')


CIFAR10_TRAIN = tuple(f"cifar-10-batches-bin/data_batch_{i}.bin" for i in range(1, 6))
CIFAR10_TEST = ("cifar-10-batches-bin/test_batch.bin",)
_CIFAR_RECORD = 1 + 3 * 32 * 32


def read_cifar10_binary(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{"training": (images (N,3,32,32) uint8, labels), "validation": ...}`` from the binary tar.

    Only the known member names are read (``extractfile``), nothing is extracted to disk.
    """
    out = {}
    try:
        with tarfile.open(path, "r:gz") as tar:
            for split, members in (("training", CIFAR10_TRAIN), ("validation", CIFAR10_TEST)):
                records = [_cifar_records(tar, name, path) for name in members]
                data = np.concatenate(records)
                out[split] = (data[:, 1:].reshape(-1, 3, 32, 32).copy(), data[:, 0].copy())
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise DownloadError(f'"{path}" is not a valid CIFAR-10 binary archive ({exc})') from None
    return out


def _cifar_records(tar: tarfile.TarFile, name: str, path: Path) -> np.ndarray:
    try:
        member = tar.extractfile(name)
    except KeyError:
        member = None
    if member is None:
        raise DownloadError(f'"{path}" has no {name}; is it the CIFAR-10 *binary* version?')
    data = member.read()
    if len(data) % _CIFAR_RECORD:
        raise DownloadError(f'"{path}": {name} is not a whole number of 3073-byte records')
    return np.frombuffer(data, dtype=np.uint8).reshape(-1, _CIFAR_RECORD)
