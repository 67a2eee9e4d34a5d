"""The parameter file: ``.npz`` archives read without executing anything (``allow_pickle=False``,
member headers checked before any array is read: shapes against the network, total size
against the memory available), names and metadata as JSON inside, written atomically. The
registry that saves and loads through it is :mod:`engine.nn.parameter`."""

from __future__ import annotations

import json
import math
import os
import re
import zipfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.core import backend
from engine.core.atomic import atomic_output

__all__ = ["ParameterFileError", "ArrayHeader", "save_arrays", "load_arrays", "read_headers",
           "read_index", "check_parameter_file", "check_extension", "FORMAT_PARAMETERS",
           "FORMAT_VERSION", "metadata_entries"]  # fmt: skip

FORMAT_PARAMETERS = "neurocanvas-parameters"
FORMAT_VERSION = 1
_META_KEY = "__neurocanvas_meta__"


class ParameterFileError(ValueError):
    """A parameter (or solver-state) file cannot be read or written; the message names the file."""


def save_arrays(path: str | os.PathLike, arrays: dict[str, Any], meta: dict[str, Any]) -> None:
    """Write ``arrays`` and the JSON-able ``meta`` to one ``.npz`` file, atomically.

    The arrays are stored under their keys; ``meta`` is stored as UTF-8 JSON bytes (a uint8
    array), so reading needs neither pickle nor any code execution.
    """
    path = os.fspath(path)
    payload = {k: np.ascontiguousarray(backend.to_numpy(a)) for k, a in arrays.items()}
    if _META_KEY in payload:
        raise ValueError(f"{path}: the array name {_META_KEY!r} is reserved")
    text = json.dumps(meta, indent=1, sort_keys=False, allow_nan=False)
    payload[_META_KEY] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    with atomic_output(path, "wb") as f:
        np.savez(f, **payload)


MAX_METADATA_BYTES = 64 * 2**20  # the JSON index of an .npz: names, shapes, flags


@dataclass(frozen=True)
class ArrayHeader:
    """What an ``.npz`` member declares before its data is read."""

    key: str
    shape: tuple[int, ...]
    dtype: np.dtype
    nbytes: int


def read_headers(path: str | os.PathLike) -> dict[str, ArrayHeader]:
    """Each member's shape and dtype from its ``.npy`` header and the archive's directory, with
    nothing of its data read; checked: a numeric dtype (no object arrays, no pickle), a shape of
    non-negative sizes whose byte count is what the archive says the member holds (a header that
    claims 10^6 x 10^6 in a small file, or a small header over a 5 GiB member, is refused here).

    Raises:
        ParameterFileError: naming the file and the member.
    """
    path = os.fspath(path)
    try:
        with zipfile.ZipFile(path) as archive:
            return _headers(path, archive)
    except ParameterFileError:
        raise
    except FileNotFoundError as exc:
        raise ParameterFileError(f"{path}: file not found") from exc
    except IsADirectoryError as exc:
        raise ParameterFileError(f"{path}: a folder, not a parameter file") from exc
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError, RuntimeError) as exc:
        if _is_npy(path):
            raise ParameterFileError(f"{path}: not an .npz archive (a single .npy array)") from exc
        raise ParameterFileError(f"{path}: not a readable .npz archive ({exc})") from exc


def _is_npy(path: str) -> bool:
    """Whether ``path`` is one NumPy array (``.npy``), which users hand in for an archive."""
    try:
        with open(path, "rb") as f:
            return f.read(6) == b"\x93NUMPY"
    except OSError:
        return False


def _headers(path: str, archive: zipfile.ZipFile) -> dict[str, ArrayHeader]:
    return {h.key: h for h in (_header(path, archive, i) for i in archive.infolist()) if h}


# The header np.save writes for a plain array (numpy.lib.format.header_data_from_array_1_0 and
# _wrap_header): read without ast.literal_eval, which costs ~0.15 ms a member. Anything else
# (other spacing, structured dtypes) goes through NumPy's own reader.
_PLAIN_HEADER = re.compile(
    rb"\{'descr': '([<>|=]?[a-z]\d{1,2})', 'fortran_order': (False|True), "
    rb"'shape': \(((?:\d+, ?)*\d*)\), \} *\n"
)


def _read_header(stream: Any) -> tuple[tuple[int, ...], bool, np.dtype]:
    """``(shape, fortran order, dtype)`` of the ``.npy`` header at the stream's start, the
    stream left at the array's first byte; ValueError for anything that is not one."""
    magic = stream.read(8)
    if len(magic) != 8 or magic[:6] != b"\x93NUMPY":
        stream.seek(0)
        np.lib.format.read_magic(stream)  # NumPy's message for a bad magic string
        raise ValueError("not an .npy header")
    version = (magic[6], magic[7])
    size_bytes = {(1, 0): 2, (2, 0): 4}.get(version)
    if size_bytes is None:
        raise ValueError(f"unsupported .npy version {version}")
    length = int.from_bytes(stream.read(size_bytes), "little")
    match = _PLAIN_HEADER.fullmatch(stream.read(length)) if length <= 10000 else None
    if match is None:  # NumPy's reader: its checks and messages
        stream.seek(0)
        np.lib.format.read_magic(stream)
        read = {(1, 0): np.lib.format.read_array_header_1_0,
                (2, 0): np.lib.format.read_array_header_2_0}[version]  # fmt: skip
        shape, fortran, dtype = read(stream, max_header_size=10000)
        return tuple(shape), bool(fortran), dtype
    text = match.group(3).decode("ascii")
    shape = tuple(int(n) for n in text.split(",") if n.strip())
    return shape, match.group(2) == b"True", np.dtype(match.group(1).decode("ascii"))


def _header(
    path: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo, kept: dict | None = None
) -> ArrayHeader | None:
    """A member's header, checked. ``kept``: the member's stream is left open there, at the
    array's first byte, with its Fortran flag (``{member name: (stream, fortran)}``), for
    :func:`_read_rest`; the caller closes it."""
    if info.is_dir():
        return None
    key = info.filename.removesuffix(".npy")
    where = f"{path}: array {key!r}"
    stream = archive.open(info)
    try:
        try:
            shape, fortran, dtype = _read_header(stream)
        except (ValueError, TypeError) as exc:
            raise ParameterFileError(f"{where}: not an .npy array ({exc})") from exc
        offset = stream.tell()
    except BaseException:
        stream.close()
        raise
    if kept is None:
        stream.close()
    else:
        old = kept.pop(info.filename, None)  # a name twice: the last one is read
        if old is not None:
            old[0].close()
        kept[info.filename] = (stream, fortran)
    if dtype.hasobject or dtype.kind not in "fiub" or dtype.fields is not None:
        raise ParameterFileError(f"{where} has unsupported dtype {dtype} (numbers only)")
    if any(not isinstance(n, int) or n < 0 for n in shape):
        raise ParameterFileError(f"{where} declares shape {shape}: sizes must be >= 0")
    nbytes = math.prod(shape) * dtype.itemsize  # Python integers: no overflow to 0
    if nbytes != info.file_size - offset:
        raise ParameterFileError(
            f"{where} declares shape {shape} ({nbytes:,} bytes) but the archive says it holds "
            f"{max(0, info.file_size - offset):,}: a corrupt or forged file"
        )
    if key == _META_KEY and nbytes > MAX_METADATA_BYTES:
        raise ParameterFileError(f"{where}: {nbytes:,} bytes of metadata, more than the "
                                 f"{MAX_METADATA_BYTES:,} allowed")  # fmt: skip
    return ArrayHeader(key, tuple(shape), dtype, nbytes)


def load_arrays(
    path: str | os.PathLike, expected: dict[str, tuple[int, ...]] | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any] | None]:
    """Read a file written by :func:`save_arrays` (or any plain ``np.savez`` archive): the
    checked reader behind every parameter, solver and checkpoint file.

    Before any array is read: the members' headers (:func:`read_headers`), each parameter's
    shape against ``expected`` (``{name: shape}`` of the network that will take them; a per-
    sample buffer may add leading rows), and their total against the memory left. Returns
    ``(arrays, meta)``; ``meta`` is None for an archive without NeuroCanvas metadata.

    Raises:
        ParameterFileError: the file is missing, corrupt, forged, holds pickled objects or bad
            metadata, does not fit ``expected`` or the memory; one line naming file and array.
    """
    path = os.fspath(path)
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError, RuntimeError):
        read_headers(path)  # its message for a missing, foreign or damaged file
        raise
    meta: dict[str, Any] | None = None
    kept: dict[str, tuple[Any, bool]] = {}  # each member opened once: header, then its array
    try:
        with archive:
            try:
                headers = {h.key: h for h in (_header(path, archive, info, kept)
                                              for info in archive.infolist()) if h}  # fmt: skip
                # every header checked before any array is read
                if _META_KEY in headers:
                    member = _member(archive, _META_KEY)
                    meta = _read_meta(path, _read_rest(member, kept[member], headers[_META_KEY]))
                names = _names_of(path, headers, meta)
                _check_fit(path, headers, names, expected)
                arrays = {}
                for key, header in headers.items():
                    if key != _META_KEY:
                        member = _member(archive, key)
                        arrays[key] = _read_rest(member, kept[member], header)
            finally:
                for stream, _fortran in kept.values():
                    stream.close()
    except ParameterFileError:
        raise
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError, RuntimeError) as exc:
        raise ParameterFileError(f"{path}: not a readable .npz archive ({exc})") from exc
    return arrays, meta


def read_index(path: str | os.PathLike) -> dict[str, ArrayHeader]:
    """``{parameter name: its header}`` of a parameter file, with no array read: the members'
    headers (:func:`read_headers`) and the metadata that names them.

    Raises:
        ParameterFileError: one line naming the file and the member.
    """
    path = os.fspath(path)
    check_extension(path, "read")
    headers = read_headers(path)
    meta = None
    try:
        with zipfile.ZipFile(path) as archive:
            if _META_KEY in headers:
                meta = _read_meta(path, _read_member(archive, _member(archive, _META_KEY)))
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError) as exc:
        raise ParameterFileError(f"{path}: not a readable .npz archive ({exc})") from exc
    metadata_entries(path, dict.fromkeys(k for k in headers if k != _META_KEY), meta)
    return {name: headers[key] for name, key in _names_of(path, headers, meta).items()}


def check_parameter_file(
    path: str | os.PathLike, expected: dict[str, tuple[int, ...]], require_all: bool = True
) -> None:
    """Check a parameter file against the network that will take it without reading its arrays:
    headers, metadata, every ``expected`` parameter present (``require_all``) with its shape,
    the total against the memory left (as :func:`load_arrays` before it reads).

    Raises:
        ParameterFileError: one line naming the file and the parameter.
    """
    path = os.fspath(path)
    index = read_index(path)
    missing = [n for n in expected if n not in index] if require_all else []
    if missing:
        more = f", nor {len(missing) - 1} more" if len(missing) > 1 else ""
        raise ParameterFileError(f"{path}: no parameter {missing[0]!r} (shape "
                                 f"{tuple(expected[missing[0]])}) that the network needs"
                                 f"{more}")  # fmt: skip
    _check_fit(path, {n: h for n, h in index.items()}, {n: n for n in index}, expected)


def _member(archive: zipfile.ZipFile, key: str) -> str:
    return key + ".npy" if key + ".npy" in archive.NameToInfo else key


def _read_member(archive: zipfile.ZipFile, name: str) -> np.ndarray:
    """A member's array (writable, as ``np.load`` gives): its bytes read in one piece after
    the header, the archive's CRC checked at the member's end."""
    with archive.open(name) as stream:
        shape, fortran, dtype = _read_header(stream)
        if dtype.hasobject or dtype.fields is not None:
            stream.seek(0)
            return np.lib.format.read_array(stream, allow_pickle=False)
        nbytes = math.prod(shape) * dtype.itemsize
        buffer = bytearray(nbytes)
        if stream.readinto(buffer) != nbytes or stream.read(1):
            raise ValueError(f"array {name!r}: {nbytes:,} bytes declared, another size stored")
    array = np.frombuffer(buffer, dtype=dtype)
    if fortran:
        return array.reshape(shape[::-1]).transpose()
    return array.reshape(shape)


def _read_rest(name: str, kept: tuple[Any, bool], header: ArrayHeader) -> np.ndarray:
    """:func:`_read_member` of a member whose header ``_header`` read and checked, from the
    stream it left open at the array's first byte (the CRC checked at the member's end)."""
    stream, fortran = kept
    buffer = bytearray(header.nbytes)
    if stream.readinto(buffer) != header.nbytes or stream.read(1):
        raise ValueError(f"array {name!r}: {header.nbytes:,} bytes declared, another size stored")
    array = np.frombuffer(buffer, dtype=header.dtype)
    if fortran:
        return array.reshape(header.shape[::-1]).transpose()
    return array.reshape(header.shape)


def _read_meta(path: str, raw: np.ndarray) -> dict[str, Any]:
    try:
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise ValueError("metadata is not a byte string")
        meta = json.loads(raw.tobytes().decode("utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("metadata is not a JSON object")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParameterFileError(f"{path}: corrupt metadata ({exc})") from exc
    return meta


def _names_of(
    path: str, headers: dict[str, ArrayHeader], meta: dict[str, Any] | None
) -> dict[str, str]:
    """``{parameter name: member key}`` from the metadata (plain archives: the keys)."""
    if meta is None:
        return {k: k for k in headers}
    entries = meta.get("parameters") if meta.get("format") == FORMAT_PARAMETERS else None
    if not isinstance(entries, list):
        return {k: k for k in headers if k != _META_KEY}  # a solver state: checked by its reader
    return {e["name"]: e["key"] for e in entries
            if isinstance(e, dict) and isinstance(e.get("name"), str)
            and isinstance(e.get("key"), str) and e["key"] in headers}  # fmt: skip


def _check_fit(
    path: str,
    headers: dict[str, ArrayHeader],
    names: dict[str, str],
    expected: dict[str, tuple[int, ...]] | None,
) -> None:
    for name, key in names.items():
        want = None if expected is None else expected.get(name)
        have = headers[key].shape
        if want is not None and have != tuple(want) and not _buffer_rows(have, tuple(want)):
            raise ParameterFileError(
                f"{path}: parameter {name!r} has shape {have} in the file but {tuple(want)} in "
                f"the network"
            )
    need = sum(h.nbytes for h in headers.values())
    have_memory = backend.host_memory()
    if have_memory is not None and need > have_memory:
        big = max(headers.values(), key=lambda h: h.nbytes)
        raise ParameterFileError(
            f"{path}: its arrays need {need / 2**30:.1f} GiB, more than the "
            f"{have_memory / 2**30:.1f} GiB of memory available (the largest, {big.key!r}, "
            f"shape {big.shape})"
        )


def _buffer_rows(have: tuple[int, ...], want: tuple[int, ...]) -> bool:
    """A per-sample buffer is stored with its rows in front: ``(rows, *shape)``."""
    return len(have) == len(want) + 1 and have[1:] == want


_FOREIGN = {".h5": "HDF5", ".protobuf": "protobuf", ".nnp": "NNP"}


def check_extension(path: str, verb: str) -> None:
    ext = os.path.splitext(path)[1].lower()
    if ext in _FOREIGN:
        raise ParameterFileError(
            f"{path}: cannot {verb} nnabla {_FOREIGN[ext]} parameter files here; "
            f"use a .npz path (engine.formats converts NNC files)"
        )


def metadata_entries(
    path: str, arrays: dict[str, np.ndarray], meta: dict[str, Any] | None
) -> list[dict]:
    if meta is None:  # a plain np.savez(name=array) archive: the keys are the names
        return [{"name": k, "key": k} for k in arrays]
    if meta.get("format") != FORMAT_PARAMETERS:
        raise ParameterFileError(
            f"{path}: not a parameter file (format {meta.get('format')!r}, "
            f"expected {FORMAT_PARAMETERS!r})"
        )
    version = meta.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ParameterFileError(
            f"{path}: unsupported format version {version!r} (this NeuroCanvas reads up to "
            f"{FORMAT_VERSION})"
        )
    entries = meta.get("parameters")
    if not isinstance(entries, list):
        raise ParameterFileError(f"{path}: metadata has no parameter list")
    for e in entries:
        if (
            not isinstance(e, dict)
            or not isinstance(e.get("name"), str)
            or not isinstance(e.get("key"), str)
            or e["key"] not in arrays
        ):
            raise ParameterFileError(f"{path}: corrupt parameter entry {e!r}")
    return entries
