"""The native project file ``.ncproj``: versioned, pretty-printed JSON that diffs well.

Layout (keys always in this order; layer properties and settings keys keep their model order)::

    {
      "format": "neurocanvas-project",
      "version": 1,
      "description": "...",
      "networks": [
        {"name": "Main",
         "layers": [{"name": "Conv", "type": "Convolution", "id": 3, "position": [24, 72],
                     "properties": {"KernelShape": "3,3", ...}}, ...],
         "links": [{"source": "Input", "destination": "Conv", "dest_pin": 0, "id": 0}, ...]}
      ],
      "settings": {"engine": {...}, "config": {...}, "dataset_index": {...},
                   "structure_search": {...}, "datasets": [{...}], "optimizers": [...],
                   "monitors": [...], "executors": [...]},
      "extra_sections": [{"name": "Script", "after": "Executor_0", "values": {...}}],
      "sdcproj": {"newline": "\\n", ...}
    }

Values are NNC's raw strings, as in the model (:mod:`engine.graph.project`). Optional keys are
left out when they hold their default (``size`` [240, 48], ``source_pin`` 0, empty ``extra``).
Saving is atomic. A file that is not JSON, not ours, from a newer version, or has a wrong value
type gives a :class:`~engine.formats.ProjectFileError` naming the file and the line/column
(syntax) or the JSON path of the bad value.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, cast

from engine.core.atomic import atomic_write_bytes, write_error_detail
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.formats.errors import ProjectFileError
from engine.graph import config as cfg
from engine.graph.project import Layer, Link, ModelError, Network, Project, RawSection, SdcprojHints

FORMAT = "neurocanvas-project"
VERSION = 1
_DEFAULT_SIZE = [240, 48]


# -- writing -------------------------------------------------------------------------------
def to_dict(project: Project) -> dict[str, Any]:
    settings: dict[str, Any] = {name: dict(project.section(name).values) for name in cfg.SINGLETONS}
    for name in cfg.COLLECTIONS:
        settings[name] = [dict(item.values) for item in getattr(project, name)]
    return {
        "format": FORMAT,
        "version": VERSION,
        "description": project.description,
        "networks": [_network_dict(n) for n in project.networks],
        "settings": settings,
        "extra_sections": [
            {"name": s.name, "after": s.after, "values": dict(s.values)}
            for s in project.extra_sections
        ],
        "sdcproj": {
            k: list(v) if isinstance(v, tuple) else v for k, v in asdict(project.hints).items()
        },
    }


def _network_dict(network: Network) -> dict[str, Any]:
    out: dict[str, Any] = {"name": network.name}
    out["layers"] = [_layer_dict(layer) for layer in network.layers]
    out["links"] = [_link_dict(link) for link in network.links]
    if network.extra:
        out["extra"] = dict(network.extra)
    return out


def _layer_dict(layer: Layer) -> dict[str, Any]:
    out: dict[str, Any] = {"name": layer.name, "type": layer.type, "id": layer.id}
    out["position"] = list(layer.position)
    if list(layer.size) != _DEFAULT_SIZE:
        out["size"] = list(layer.size)
    out["properties"] = dict(layer.properties)
    if layer.extra:
        out["extra"] = dict(layer.extra)
    return out


def _link_dict(link: Link) -> dict[str, Any]:
    out: dict[str, Any] = {"source": link.source, "destination": link.destination}
    out["dest_pin"] = link.dest_pin
    if link.source_pin:
        out["source_pin"] = link.source_pin
    out["id"] = link.id
    if link.extra:
        out["extra"] = dict(link.extra)
    return out


def dumps_native(project: Project) -> str:
    return _pretty(to_dict(project), "") + "\n"


def _pretty(value: Any, indent: str, key: str | None = None) -> str:
    """``json.dumps(indent=2)``, except that lists of scalars and link objects take one line."""
    one_line = json.dumps(value, ensure_ascii=False)
    scalars = isinstance(value, list | dict) and all(
        not isinstance(v, list | dict)
        for v in (value.values() if isinstance(value, dict) else value)
    )
    if not isinstance(value, list | dict) or not value:
        return one_line
    if scalars and (isinstance(value, list) or key == "links") and len(one_line) <= 100:
        return one_line
    inner = indent + "  "
    if isinstance(value, list):
        items = [inner + _pretty(v, inner, key) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    items = [
        f"{inner}{json.dumps(k, ensure_ascii=False)}: {_pretty(v, inner, k)}"
        for k, v in value.items()
    ]
    return "{\n" + ",\n".join(items) + "\n" + indent + "}"


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` atomically (:mod:`engine.core.atomic`: mode and symlinks kept)."""
    try:
        atomic_write_bytes(path, data)
    except OSError as exc:
        raise ProjectFileError(path, write_error_detail(exc, path)) from None


def write_native(project: Project, path: str | os.PathLike[str]) -> None:
    atomic_write(path, dumps_native(project).encode("utf-8"))


# -- reading -------------------------------------------------------------------------------
class _Bad(Exception):
    """A wrong value at a JSON path; turned into ProjectFileError by ``parse_native``."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Bad(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _Bad(f"{name} is not a valid number in a project file")


def parse_native(data: bytes | str, path: str | os.PathLike[str] | None = None) -> Project:
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ProjectFileError(
                path,
                QT_TRANSLATE_NOOP("Problems", "not UTF-8 text (byte {start})").format(
                    start=exc.start
                ),
            ) from None
    try:
        doc = json.loads(data, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ProjectFileError(
            path,
            QT_TRANSLATE_NOOP("Problems", "invalid JSON: {msg}").format(msg=exc.msg),
            line=exc.lineno,
            column=exc.colno,
        ) from None
    except _Bad as exc:
        raise ProjectFileError(path, str(exc)) from None
    except RecursionError:
        raise ProjectFileError(
            path, QT_TRANSLATE_NOOP("Problems", "invalid JSON: nested too deeply")
        ) from None
    try:
        return from_dict(doc)
    except _Bad as exc:
        raise ProjectFileError(path, str(exc)) from None
    except ModelError as exc:
        raise ProjectFileError(path, str(exc)) from None


def read_native(path: str | os.PathLike[str]) -> Project:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ProjectFileError(
            path,
            QT_TRANSLATE_NOOP("Problems", "cannot read: {value}").format(value=exc.strerror or exc),
        ) from None
    return parse_native(data, path)


def from_dict(doc: Any) -> Project:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _Bad(f'not a NeuroCanvas project (expected "format": "{FORMAT}")')
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _Bad(f"version: expected a positive integer. Received: {version!r}")
    if version > VERSION:
        raise _Bad(
            f"written by a newer NeuroCanvas (format version {version}); this version reads "
            f"up to {VERSION}. Update NeuroCanvas to open it."
        )
    networks = [_network(n, f"networks[{i}]") for i, n in enumerate(_list(doc, "networks", "$"))]
    settings = _obj(doc, "settings", "$", default={})
    kwargs: dict[str, Any] = {}
    for name, cls in cfg.SINGLETONS.items():
        kwargs[name] = cls(_strings(settings, name, "settings", default={}))
    for name, cls in cfg.COLLECTIONS.items():
        items = _list(settings, name, "settings", default=[])
        kwargs[name] = [
            cls(_strings_value(v, f"settings.{name}[{i}]")) for i, v in enumerate(items)
        ]
    extra = [
        _raw_section(s, f"extra_sections[{i}]")
        for i, s in enumerate(_list(doc, "extra_sections", "$", default=[]))
    ]
    return Project(
        networks,
        description=_str(doc, "description", "$", default=""),
        extra_sections=extra,
        hints=_hints(_obj(doc, "sdcproj", "$", default={})),
        **kwargs,
    )


def _network(doc: Any, where: str) -> Network:
    _expect(doc, dict, where, "an object")
    network = Network(_str(doc, "name", where), extra=_strings(doc, "extra", where, default={}))
    for i, item in enumerate(_list(doc, "layers", where)):
        _attempt(network.add_layer, _layer(item, f"{where}.layers[{i}]"), f"{where}.layers[{i}]")
    for i, item in enumerate(_list(doc, "links", where)):
        _attempt(network.connect, _link(item, f"{where}.links[{i}]"), f"{where}.links[{i}]")
    return network


def _attempt(action: Any, value: Any, where: str) -> None:
    try:
        action(value)
    except ModelError as exc:
        raise _Bad(f"{where}: {exc}") from None


def _layer(doc: Any, where: str) -> Layer:
    _expect(doc, dict, where, "an object")
    return Layer(
        name=_str(doc, "name", where),
        type=_str(doc, "type", where),
        properties=_strings(doc, "properties", where, default={}),
        position=_pair(doc, "position", where, [0, 0]),
        size=_pair(doc, "size", where, _DEFAULT_SIZE),
        id=_int(doc, "id", where, default=None),
        extra=_strings(doc, "extra", where, default={}),
    )


def _link(doc: Any, where: str) -> Link:
    _expect(doc, dict, where, "an object")
    return Link(
        source=_str(doc, "source", where),
        destination=_str(doc, "destination", where),
        dest_pin=_int(doc, "dest_pin", where, default=0),
        source_pin=_int(doc, "source_pin", where, default=0),
        id=_int(doc, "id", where, default=None),
        extra=_strings(doc, "extra", where, default={}),
    )


def _raw_section(doc: Any, where: str) -> RawSection:
    _expect(doc, dict, where, "an object")
    after = doc.get("after")
    if after is not None and not isinstance(after, str):
        raise _Bad(f"{where}.after: expected a string or null. Received: {after!r}")
    return RawSection(_str(doc, "name", where), _strings(doc, "values", where, default={}), after)


def _hints(doc: dict[str, Any]) -> SdcprojHints:
    known = {f.name: f for f in fields(SdcprojHints)}
    values: dict[str, Any] = {}
    for key, value in doc.items():
        if key not in known:
            continue  # hints are advisory; ignore ones a later version added
        default = getattr(SdcprojHints(), key)
        if key == "absent" and isinstance(value, list) and all(isinstance(v, str) for v in value):
            values[key] = tuple(value)
        elif key == "global_section" and (value is None or isinstance(value, bool)):
            values[key] = value
        elif type(value) is type(default):
            values[key] = value
        else:
            raise _Bad(f"sdcproj.{key}: unexpected value {value!r}")
    if values.get("newline", "\n") not in ("\n", "\r\n"):
        raise _Bad(f'sdcproj.newline: expected "\\n" or "\\r\\n". Received: {values["newline"]!r}')
    return SdcprojHints(**values)


# -- typed access with JSON paths ----------------------------------------------------------
_MISSING = object()


def _expect(value: Any, kind: type | tuple[type, ...], where: str, name: str) -> None:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise _Bad(f"{where}: expected {name}. Received: {json.dumps(value)[:80]}")


def _get(doc: dict[str, Any], key: str, where: str, default: Any) -> Any:
    if key not in doc:
        if default is _MISSING:
            raise _Bad(f"{where}: key {key!r} is missing")
        return default
    return doc[key]


def _str(doc: dict[str, Any], key: str, where: str, default: Any = _MISSING) -> str:
    value = _get(doc, key, where, default)
    _expect(value, str, f"{where}.{key}", "a string")
    return cast(str, value)


def _int(doc: dict[str, Any], key: str, where: str, default: Any = _MISSING) -> Any:
    value = _get(doc, key, where, default)
    if value is None and default is None:
        return None
    _expect(value, int, f"{where}.{key}", "an integer")
    return value


def _obj(doc: dict[str, Any], key: str, where: str, default: Any = _MISSING) -> dict[str, Any]:
    value = _get(doc, key, where, default)
    _expect(value, dict, f"{where}.{key}", "an object")
    return cast(dict[str, Any], value)


def _list(doc: dict[str, Any], key: str, where: str, default: Any = _MISSING) -> list[Any]:
    value = _get(doc, key, where, default)
    _expect(value, list, f"{where}.{key}", "a list")
    return cast(list[Any], value)


def _strings(doc: dict[str, Any], key: str, where: str, default: Any = _MISSING) -> dict[str, str]:
    return _strings_value(_get(doc, key, where, default), f"{where}.{key}")


def _strings_value(value: Any, where: str) -> dict[str, str]:
    _expect(value, dict, where, "an object of strings")
    for key, item in value.items():
        _expect(item, str, f"{where}.{key}", "a string")
    return dict(value)


def _pair(
    doc: dict[str, Any], key: str, where: str, default: Sequence[float]
) -> tuple[float, float]:
    value = _get(doc, key, where, default)
    ok = isinstance(value, list) and len(value) == 2
    ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    if not ok:
        raise _Bad(f"{where}.{key}: expected [x, y] numbers. Received: {json.dumps(value)[:80]}")
    return (value[0], value[1])
