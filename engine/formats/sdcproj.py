"""NNC's ``.sdcproj`` (Windows INI) read into the model and written back (docs/formats.md §1).

Reading keeps everything: layer/link IDs, property order and raw values (``Padding=0,r`` loads
and is left to validation), every settings key in file order, and any section the model does
not interpret (``[Script]``, ``[General]``, ``[Statistics]``, ...) as a ``RawSection`` with its
place in the file. Line ends (LF/CRLF), a UTF-8 BOM, the encoding (UTF-8, else cp932, else
cp1252) and whether ``[Global]`` was written are kept in ``project.hints``, so an unedited
project is written back byte for byte. Not kept: ``;`` comment lines and blank lines (NNC
writes neither), the order of keys inside layer and link sections when it differs from NNC's,
and non-canonical spellings of integers (``ID=007``).

Property names are kept as written; the legacy ``SkipAtInspection`` is mapped to
``SkipAtTest`` by the layer catalogue, not here, so the file round-trips.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.core.numbers import whole_number_text
from engine.formats.errors import ProjectFileError
from engine.formats.native import atomic_write  # one atomic writer
from engine.graph import config as cfg
from engine.graph.project import Layer, Link, ModelError, Network, Project, RawSection
from engine.graph.project import SdcprojHints as Hints

_V = TypeVar("_V")
ENCODINGS = ("utf-8", "cp932", "cp1252")
_BOM = "\ufeff"
_ITEM_SECTIONS: tuple[tuple[str, str, type[cfg.Section], str], ...] = (
    ("datasets", "Dataset", cfg.Dataset, "Num"),
    ("optimizers", "Optimizer", cfg.Optimizer, "NumOptimizer"),
    ("monitors", "Monitor", cfg.Monitor, "NumMonitor"),
    ("executors", "Executor", cfg.Executor, "NumExecutor"),
)
_FIXED_LAYER_KEYS = ("ID", "Type", "NumProperty", "Position_0", "Position_1", "Position_2",
                     "Position_3")  # fmt: skip
# The keys a layer is read from; group 1: a property's index.
_LAYER_KEYS = re.compile(r"^(?:ID|Type|NumProperty|Position_[0-3]|Property_(\d+)_(?:Name|Value))$")
_LINK_KEYS = ("ID", "SourceLayerID", "SourcePinIndex", "DestLayerID", "DestPinIndex")


# -- INI text ------------------------------------------------------------------------------
@dataclass
class _Section:
    name: str
    line: int
    keys: dict[str, tuple[str, int]] = field(default_factory=dict)  # key -> (value, line)

    def values(self) -> dict[str, str]:
        return {k: v for k, (v, _) in self.keys.items()}


def decode(data: bytes, path: str | None = None) -> tuple[str, Hints]:
    """Bytes -> text and the layout hints (BOM, encoding, line ends, final newline)."""
    bom = data.startswith(b"\xef\xbb\xbf")
    if bom:
        data = data[3:]
    if b"\x00" in data:
        raise ProjectFileError(
            path, QT_TRANSLATE_NOOP("Problems", "not a text file (it contains NUL bytes)")
        )
    for encoding in ENCODINGS:
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:  # cp1252 leaves five bytes undefined; such a file is not NNC's
        raise ProjectFileError(
            path, QT_TRANSLATE_NOOP("Problems", "not a text file in UTF-8, cp932 or cp1252")
        )
    crlf = text.count("\r\n")
    hints = Hints(
        newline="\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n",
        bom=bom,
        final_newline=text.endswith("\n"),
        encoding="utf-8" if bom else encoding,
    )
    return text, hints


def parse_ini(text: str, path: str | None = None) -> list[_Section]:
    """NNCD's INI dialect: ``[Section]``, ``Key=Value`` to line end, ``;`` comments."""
    sections: list[_Section] = []
    seen: dict[str, int] = {}
    current: _Section | None = None
    lines = re.split(r"\r\n|\n|\r", text) if "\r" in text else text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line or line[0] == ";" or (line[0].isspace() and not line.strip()):
            continue
        if line[0] == "[":
            name = line.rstrip()
            if not name.endswith("]") or len(name) < 3 or "]" in name[1:-1]:
                raise ProjectFileError(
                    path,
                    QT_TRANSLATE_NOOP("Problems", "bad section header {line}").format(
                        line=repr(line[:60])
                    ),
                    line=number,
                )
            name = name[1:-1]
            if name in seen:
                raise ProjectFileError(
                    path,
                    QT_TRANSLATE_NOOP(
                        "Problems", "section [{name}] appears twice (first on line {seen})"
                    ).format(name=name, seen=seen[name]),
                    line=number,
                )
            seen[name] = number
            current = _Section(name, number)
            sections.append(current)
            continue
        if current is None:
            raise ProjectFileError(
                path,
                QT_TRANSLATE_NOOP(
                    "Problems", "expected a [Section] header. Received: {line}"
                ).format(line=repr(line[:60])),
                line=number,
            )
        key, sep, value = line.partition("=")
        if not sep or not key:
            raise ProjectFileError(
                path,
                QT_TRANSLATE_NOOP("Problems", "expected Key=Value. Received: {line}").format(
                    line=repr(line[:60])
                ),
                line=number,
                section=current.name,
            )
        if key in current.keys:
            first = current.keys[key][1]
            twice = QT_TRANSLATE_NOOP("Problems", "key {key} appears twice (first on line {first})")
            raise ProjectFileError(path, twice.format(key=key, first=first), line=number,
                                   section=current.name)  # fmt: skip
        current.keys[key] = (value, number)
    return sections


# -- reading -------------------------------------------------------------------------------
class _Reader:
    def __init__(self, sections: list[_Section], path: str | None) -> None:
        self.path = path
        self.order = sections
        self.by_name = {s.name: s for s in sections}
        self.used: set[str] = set()

    def error(
        self, message: str, sec: _Section | str | None = None, key: str | None = None
    ) -> ProjectFileError:
        if isinstance(sec, str):
            return ProjectFileError(self.path, message, section=sec)
        line = None if sec is None else sec.line
        if sec is not None and key is not None and key in sec.keys:
            line = sec.keys[key][1]
        return ProjectFileError(
            self.path, message, line=line, section=None if sec is None else sec.name
        )

    def take(self, name: str) -> _Section | None:
        """The section if present, marked as read (so it is not kept as a RawSection)."""
        sec = self.by_name.get(name)
        if sec is not None:
            self.used.add(name)
        return sec

    def need(self, name: str) -> _Section:
        sec = self.take(name)
        if sec is None:
            raise self.error("section is missing", name)
        return sec

    def int(self, sec: _Section, key: str, default: int | None = None) -> int:
        if key not in sec.keys:
            if default is None:
                raise self.error(f"key {key} is missing", sec)
            return default
        text = sec.keys[key][0]
        try:
            return int(text)
        except ValueError:
            raise self.error(
                f"{key}: expected an integer. Received: {key}={text}", sec, key
            ) from None

    def number(self, sec: _Section, key: str, default: float) -> float:
        text = sec.keys.get(key, (None, 0))[0]
        if text is None:
            return default
        try:
            value = float(text)
            if not math.isfinite(value):
                raise ValueError(text)
        except ValueError:
            raise self.error(
                f"{key}: expected a number. Received: {key}={text}", sec, key
            ) from None
        return int(value) if value.is_integer() and re.fullmatch(r"-?\d+", text) else value


def parse_sdcproj(data: bytes | str, path: str | os.PathLike[str] | None = None) -> Project:
    """Parse ``.sdcproj`` content; errors are ``ProjectFileError`` naming file, line, section."""
    path = None if path is None else os.fspath(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    text, hints = decode(data, path)
    if text.startswith(_BOM):
        text = text[1:]
    reader = _Reader(parse_ini(text, path), path)
    if not reader.order:
        raise ProjectFileError(
            path, QT_TRANSLATE_NOOP("Problems", "empty file: no [Section] found")
        )
    networks, explicit_global = _read_networks(reader)
    hints = replace(hints, global_section=explicit_global, absent=_absent(reader))
    settings = _read_settings(reader)
    description = _read_description(reader)
    extra = _extra_sections(reader)
    try:
        return Project(
            networks, description=description, extra_sections=extra, hints=hints, **settings
        )
    except ModelError as exc:
        raise ProjectFileError(path, str(exc)) from None


def read_sdcproj(path: str | os.PathLike[str]) -> Project:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ProjectFileError(
            path,
            QT_TRANSLATE_NOOP("Problems", "cannot read: {value}").format(value=exc.strerror or exc),
        ) from None
    return parse_sdcproj(data, path)


def _absent(reader: _Reader) -> tuple[str, ...]:
    names = ("Engine", "Dataset", "Description", "Config", "StructureSearch")
    return tuple(n for n in names if n not in reader.by_name)


def _read_networks(reader: _Reader) -> tuple[list[Network], bool]:
    glob = reader.take("Global")
    if glob is None:
        names, prefixes = ["Main"], [""]
    else:
        count = reader.int(glob, "NumNetwork")
        names = []
        for i in range(count):
            if f"Network_{i}" not in glob.keys:
                raise reader.error(f"key Network_{i} is missing (NumNetwork={count})", glob)
            names.append(glob.keys[f"Network_{i}"][0])
        prefixes = [f"{n}_" for n in names]
    seen: set[str] = set()
    networks = []
    for name, prefix in zip(names, prefixes, strict=True):
        if name in seen:
            raise reader.error(f'network "{name}" is listed twice', glob)
        seen.add(name)
        networks.append(_read_network(reader, name, prefix))
    return networks, glob is not None


def _read_network(reader: _Reader, name: str, prefix: str) -> Network:
    head = reader.need(f"{prefix}Network_Global")
    num_layers = reader.int(head, "NumLayer")
    num_links = reader.int(head, "NumLink")
    extra = {k: v for k, v in head.values().items() if k not in ("NumLayer", "NumLink")}
    network = Network(name, extra=extra)
    by_id: dict[int, str] = {}
    for i in range(num_layers):
        sec = reader.need(f"{prefix}Layer_{i}")
        layer = _read_layer(reader, sec)
        if layer.name in network.layer_names:
            raise reader.error(f'network "{name}": duplicate layer name "{layer.name}"', sec)
        if layer.id in by_id:
            other = by_id[layer.id]
            raise reader.error(
                f'network "{name}": layer ID {layer.id} is also used by "{other}"', sec, "ID"
            )
        assert layer.id is not None  # _read_layer requires ID
        by_id[layer.id] = layer.name
        _wrap(reader, sec, network.add_layer, layer)
    for i in range(num_links):
        sec = reader.need(f"{prefix}Link_{i}")
        link = _read_link(reader, sec, by_id, name)
        _wrap(reader, sec, network.connect, link)
    return network


def _wrap(reader: _Reader, sec: _Section, action: Callable[[_V], object], value: _V) -> None:
    """``action(value)`` with a model error reported at the section it came from."""
    try:
        action(value)
    except ModelError as exc:
        raise reader.error(str(exc), sec) from None


def _read_layer(reader: _Reader, sec: _Section) -> Layer:
    keys = sec.keys
    count = reader.int(sec, "NumProperty") if "NumProperty" in keys else _count_properties(sec)
    props: dict[str, str] = {}
    read = set(_FIXED_LAYER_KEYS)  # the keys read here (every other one is kept verbatim)
    for k in range(count):
        key, value_key = f"Property_{k}_Name", f"Property_{k}_Value"
        if key not in keys:
            raise reader.error(f"key {key} is missing (NumProperty={count})", sec)
        prop = keys[key][0]
        if prop in props:
            raise reader.error(f"property {prop} appears twice", sec, key)
        props[prop] = keys.get(value_key, ("", 0))[0]
        read.add(key)
        read.add(value_key)
    if "Name" not in props:
        raise reader.error("the layer has no Name property", sec)
    name = props.pop("Name")
    if not name.strip():
        raise reader.error("the layer's Name is empty", sec)
    if "Type" not in sec.keys or not sec.keys["Type"][0]:
        raise reader.error(f'layer "{name}": key Type is missing', sec)
    position = (reader.number(sec, "Position_0", 0), reader.number(sec, "Position_1", 0))
    size = (reader.number(sec, "Position_2", 240), reader.number(sec, "Position_3", 48))
    extra = {
        key: value
        for key, (value, _line) in keys.items()
        if key not in read and _extra_key(key, count)
    }
    return Layer(
        name=name, type=sec.keys["Type"][0], properties=props, position=position, size=size,
        id=reader.int(sec, "ID"), extra=extra,
    )  # fmt: skip


def _count_properties(sec: _Section) -> int:
    k = 0
    while f"Property_{k}_Name" in sec.keys:
        k += 1
    return k


def _extra_key(key: str, count: int) -> bool:
    """A key of a layer's section that is not one the layer is read from: kept verbatim."""
    match = _LAYER_KEYS.match(key)
    if match is None:
        return True
    index = match.group(1)  # Property_<k>_Name/Value: beyond NumProperty, NNC ignores it
    return index is not None and int(index) >= count


def _read_link(reader: _Reader, sec: _Section, by_id: dict[int, str], network: str) -> Link:
    ends = []
    for key in ("SourceLayerID", "DestLayerID"):
        layer_id = reader.int(sec, key)
        if layer_id not in by_id:
            raise reader.error(f'network "{network}": {key}={layer_id} names no layer', sec, key)
        ends.append(by_id[layer_id])
    return Link(
        source=ends[0],
        destination=ends[1],
        dest_pin=reader.int(sec, "DestPinIndex", 0),
        source_pin=reader.int(sec, "SourcePinIndex", 0),
        id=reader.int(sec, "ID", -1) if "ID" in sec.keys else None,
        extra={k: v for k, v in sec.values().items() if k not in _LINK_KEYS},
    )


def _read_settings(reader: _Reader) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr, name, cls in (
        ("engine", "Engine", cfg.Engine),
        ("structure_search", "StructureSearch", cfg.StructureSearch),
    ):
        sec = reader.take(name)
        out[attr] = cls(sec.values() if sec else {})
    head = reader.take("Dataset")
    config = reader.take("Config")
    out["dataset_index"] = cfg.DatasetIndex(_without(head, ("Num",)))
    out["config"] = cfg.GlobalConfig(
        _without(config, ("NumOptimizer", "NumMonitor", "NumExecutor"))
    )
    for attr, prefix, item_cls, count_key in _ITEM_SECTIONS:
        owner = head if attr == "datasets" else config
        count = reader.int(owner, count_key, 0) if owner is not None else 0
        items = [item_cls(reader.need(f"{prefix}_{i}").values()) for i in range(count)]
        out[attr] = items
    return out


def _without(sec: _Section | None, keys: tuple[str, ...]) -> dict[str, str]:
    return {} if sec is None else {k: v for k, v in sec.values().items() if k not in keys}


def _read_description(reader: _Reader) -> str:
    sec = reader.take("Description")
    if sec is None:
        return ""
    others = [k for k in sec.keys if k != "Text"]
    if others:
        raise reader.error(f"unknown key {others[0]} (only Text is allowed)", sec, others[0])
    return sec.keys.get("Text", ("", 0))[0].replace("\\n", "\n")


def _extra_sections(reader: _Reader) -> list[RawSection]:
    extra = []
    previous: str | None = None
    for sec in reader.order:
        if sec.name not in reader.used:
            extra.append(RawSection(sec.name, sec.values(), after=previous))
        previous = sec.name
    return extra


# -- writing -------------------------------------------------------------------------------
def dumps_sdcproj(project: Project) -> str:
    """The project as ``.sdcproj`` text, lines joined by ``project.hints.newline``."""
    hints = project.hints
    blocks = list(_blocks(project))
    blocks = _place_extra(blocks, project.extra_sections)
    lines = []
    for name, values in blocks:
        lines.append(f"[{name}]")
        for key, value in values:
            line = f"{key}={value}"
            # NUL: the reader refuses files holding it (a binary file), so never write one
            bad = "\n" in line or "\r" in line or "\x00" in line
            if bad or "=" in key or not key or key[0] in ";[":
                raise ProjectFileError(
                    None,
                    QT_TRANSLATE_NOOP(
                        "Problems", "cannot write key {key} = {value}: not one INI line"
                    ).format(key=repr(key), value=repr(value)),
                    section=name,
                )
            lines.append(line)
    text = hints.newline.join(lines) + (hints.newline if hints.final_newline else "")
    return (_BOM if hints.bom else "") + text


def dump_sdcproj(project: Project) -> bytes:
    text = dumps_sdcproj(project)
    try:
        return text.encode(project.hints.encoding)
    except (UnicodeEncodeError, LookupError):  # new non-ASCII text in a code-page file
        return text.encode("utf-8")


def write_sdcproj(project: Project, path: str | os.PathLike[str]) -> None:
    """Write atomically (temporary file in the same folder, then ``os.replace``)."""
    try:
        data = dump_sdcproj(project)
    except ProjectFileError as exc:
        raise ProjectFileError(path, exc.detail, section=exc.section) from None
    atomic_write(path, data)


Block = tuple[str, list[tuple[str, str]]]


def _blocks(project: Project) -> Iterator[Block]:
    absent = set(project.hints.absent)
    if "Engine" not in absent or project.engine.values:
        yield "Engine", list(project.engine.values.items())
    networks = project.networks
    explicit = project.hints.global_section
    with_global = len(networks) != 1 or networks[0].name != "Main" or bool(explicit)
    if with_global:
        yield (
            "Global",
            [("NumNetwork", str(len(networks)))]
            + [(f"Network_{i}", n.name) for i, n in enumerate(networks)],
        )
    for network in networks:
        yield from _network_blocks(network, f"{network.name}_" if with_global else "")
    yield from _settings_blocks(project, absent)


def _network_blocks(network: Network, prefix: str) -> Iterator[Block]:
    yield (
        f"{prefix}Network_Global",
        [
            ("NumLayer", str(len(network.layers))),
            ("NumLink", str(len(network.links))),
            *network.extra.items(),
        ],
    )
    ids = {}
    for i, layer in enumerate(network.layers):
        ids[layer.name] = layer.id
        values = [("ID", str(layer.id)), ("Type", layer.type)]
        values += [
            (f"Position_{j}", whole_number_text(v))
            for j, v in enumerate((*layer.position, *layer.size))
        ]
        for k, (key, value) in enumerate([("Name", layer.name), *layer.properties.items()]):
            values += [(f"Property_{k}_Name", key), (f"Property_{k}_Value", value)]
        values.append(("NumProperty", str(len(layer.properties) + 1)))
        values += list(layer.extra.items())
        yield f"{prefix}Layer_{i}", values
    for i, link in enumerate(network.links):
        yield (
            f"{prefix}Link_{i}",
            [
                ("ID", str(link.id)),
                ("SourceLayerID", str(ids[link.source])),
                ("SourcePinIndex", str(link.source_pin)),
                ("DestLayerID", str(ids[link.destination])),
                ("DestPinIndex", str(link.dest_pin)),
                *link.extra.items(),
            ],
        )


def _settings_blocks(project: Project, absent: set[str]) -> Iterator[Block]:
    datasets = project.datasets
    if "Dataset" not in absent or datasets or project.dataset_index.values:
        yield "Dataset", [("Num", str(len(datasets))), *project.dataset_index.values.items()]
        for i, item in enumerate(datasets):
            yield f"Dataset_{i}", list(item.values.items())
    if "Description" not in absent or project.description:
        text = re.sub(r"\r\n?", "\n", project.description)
        yield "Description", [("Text", text.replace("\n", "\\n"))]
    items = [(p, getattr(project, a)) for a, p, _, _ in _ITEM_SECTIONS[1:]]
    if "Config" not in absent or project.config.values or any(v for _, v in items):
        counts = [(key, str(len(getattr(project, a)))) for a, _, _, key in _ITEM_SECTIONS[1:]]
        yield "Config", [*project.config.values.items(), *counts]
        for prefix, values in items:
            for i, item in enumerate(values):
                yield f"{prefix}_{i}", list(item.values.items())
    if "StructureSearch" not in absent or project.structure_search.values:
        yield "StructureSearch", list(project.structure_search.values.items())


def _family(name: str) -> str:
    return re.sub(r"_\d+$", "", name)


def _place_extra(blocks: list[Block], extra: list[RawSection]) -> list[Block]:
    """Put unknown sections back after the section they followed (or its family's last)."""
    out = list(blocks)
    for raw in extra:
        block = (raw.name, list(raw.values.items()))
        if raw.after is None:
            at = 0
            while at < len(out) and out[at][0] in _placed_at_start(extra, raw):
                at += 1
            out.insert(at, block)
            continue
        names = [b[0] for b in out]
        family = _family(raw.after)
        hits = [i for i, n in enumerate(names) if n == raw.after or _family(n) == family]
        out.insert(hits[-1] + 1 if hits else len(out), block)
    return out


def _placed_at_start(extra: list[RawSection], raw: RawSection) -> set[str]:
    """Sections that precede ``raw`` at the file start (keeps their relative order)."""
    names = set()
    for other in extra:
        if other is raw:
            break
        names.add(other.name)
    return names
