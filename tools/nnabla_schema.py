"""Regenerate ``engine/formats/nnabla/schema.py`` from nnabla's ``nnabla.proto``.

``schema.py`` holds nnabla's protobuf schema as a serialized ``FileDescriptorProto`` (zlib, then
base64, in 96-character pieces) so that reading and writing ``.nnp`` needs no ``protoc``. This
script writes that block (and ``NNABLA_VERSION``) from one of three sources and leaves the rest
of the module as it is::

    # from an installed nnabla (its generated nnabla/utils/nnabla_pb2.py)
    python tools/nnabla_schema.py --from-nnabla
    # from nnabla's nnabla.proto (generated in nnabla's build from nnabla.proto.tmpl and
    # functions.yaml), compiled with protoc on PATH or grpcio-tools
    python tools/nnabla_schema.py --proto path/to/nnabla.proto --version 1.40.0
    # from a descriptor set protoc already wrote (protoc --descriptor_set_out=FILE nnabla.proto)
    python tools/nnabla_schema.py --descriptor-set nnabla.desc --version 1.40.0
    # check that schema.py is exactly what this script writes for the schema it holds
    python tools/nnabla_schema.py --check

``--output FILE`` writes (or checks) another file instead of the engine's. See
docs/adding-a-layer.md §5.
"""

from __future__ import annotations

import argparse
import base64
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

SCHEMA = Path(__file__).resolve().parents[1] / "engine" / "formats" / "nnabla" / "schema.py"
PROTO_NAME = "nnabla.proto"
PIECE = 96  # base64 characters per line: 4 spaces + quotes + 96 = 102 columns, as the file has
_BLOCK = re.compile(r'^_DESCRIPTOR = \(\n(?:    "[A-Za-z0-9+/=]*"\n)+\)\n', re.M)
_VERSION = re.compile(r'^NNABLA_VERSION = "[^"\n]*"\n', re.M)


class SchemaError(Exception):
    """A problem with the input or with schema.py, said in one line."""


def encode(descriptor: bytes) -> str:
    """The ``_DESCRIPTOR = (...)`` block for a serialized ``FileDescriptorProto``."""
    text = base64.b64encode(zlib.compress(descriptor, 9)).decode("ascii")
    pieces = [text[i : i + PIECE] for i in range(0, len(text), PIECE)]
    return "_DESCRIPTOR = (\n" + "".join(f'    "{p}"\n' for p in pieces) + ")\n"


def decode(module_text: str) -> bytes:
    """The serialized ``FileDescriptorProto`` a schema.py holds."""
    match = _BLOCK.search(module_text)
    if match is None:
        raise SchemaError("schema.py has no _DESCRIPTOR = (...) block of base64 pieces")
    text = "".join(re.findall(r'"([A-Za-z0-9+/=]*)"', match.group(0)))
    try:
        return zlib.decompress(base64.b64decode(text, validate=True))
    except (ValueError, zlib.error) as exc:
        raise SchemaError(f"schema.py's _DESCRIPTOR does not decode ({exc})") from None


def render(module_text: str, descriptor: bytes, version: str | None) -> str:
    """``module_text`` with its descriptor block (and version, when given) replaced."""
    if _BLOCK.search(module_text) is None:
        raise SchemaError("schema.py has no _DESCRIPTOR = (...) block to replace")
    text = _BLOCK.sub(lambda _m: encode(descriptor), module_text, count=1)
    if version is not None:
        if _VERSION.search(text) is None:
            raise SchemaError('schema.py has no NNABLA_VERSION = "..." line to replace')
        text = _VERSION.sub(lambda _m: f'NNABLA_VERSION = "{version}"\n', text, count=1)
    return text


def _check_descriptor(descriptor: bytes) -> bytes:
    from google.protobuf import descriptor_pb2

    try:
        proto = descriptor_pb2.FileDescriptorProto.FromString(descriptor)
    except Exception as exc:  # protobuf's DecodeError
        raise SchemaError(f"not a serialized FileDescriptorProto ({exc})") from None
    names = {m.name for m in proto.message_type}
    missing = {"NNablaProtoBuf", "Network", "Function", "Parameter"} - names
    if missing:
        raise SchemaError(f"not nnabla's schema: no message {', '.join(sorted(missing))}")
    return proto.SerializeToString(deterministic=True)


def from_descriptor_set(path: Path) -> bytes:
    from google.protobuf import descriptor_pb2

    try:
        files = descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes()).file
    except OSError as exc:
        raise SchemaError(f"{path}: {exc.strerror}") from None
    except Exception as exc:  # protobuf's DecodeError and friends
        raise SchemaError(f"{path}: not a protobuf descriptor set ({exc})") from None
    for file in files:
        if Path(file.name).name == PROTO_NAME:
            return file.SerializeToString(deterministic=True)
    raise SchemaError(f"{path}: holds no {PROTO_NAME} ({', '.join(f.name for f in files)})")


def from_proto(path: Path) -> bytes:
    if not path.is_file():
        raise SchemaError(f"{path}: no such file")
    protoc = shutil.which("protoc")
    command = [protoc] if protoc else [sys.executable, "-m", "grpc_tools.protoc"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "nnabla.desc"
        args = [f"-I{path.parent}", f"--descriptor_set_out={out}", path.name]
        result = subprocess.run(command + args, capture_output=True, text=True)
        if result.returncode != 0 or not out.is_file():
            reason = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise SchemaError(f"{path}: protoc failed ({reason}); install protoc or grpcio-tools")
        return from_descriptor_set(out)


def from_nnabla() -> tuple[bytes, str]:
    try:
        import nnabla  # type: ignore[import-not-found]
        from nnabla.utils import nnabla_pb2  # type: ignore[import-not-found]
    except ImportError as exc:
        raise SchemaError(f"nnabla is not installed ({exc}); pip install nnabla==VERSION") from None
    return nnabla_pb2.DESCRIPTOR.serialized_pb, str(nnabla.__version__)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--from-nnabla", action="store_true", help="an installed nnabla")
    source.add_argument("--proto", type=Path, help="nnabla.proto (needs protoc or grpcio-tools)")
    source.add_argument("--descriptor-set", type=Path, help="protoc --descriptor_set_out file")
    source.add_argument("--check", action="store_true", help="schema.py is this script's output")
    parser.add_argument("--version", help="the nnabla version the schema comes from")
    parser.add_argument("--output", type=Path, help=f"file to write or check (default {SCHEMA})")
    args = parser.parse_args(argv)
    target = args.output or SCHEMA
    try:
        module_text = (target if args.check else SCHEMA).read_text(encoding="utf-8")
        if args.check:
            expected = render(module_text, _check_descriptor(decode(module_text)), None)
            if expected != module_text:
                print(f"{target}: not what tools/nnabla_schema.py writes for the schema it "
                      f"holds; regenerate it", file=sys.stderr)  # fmt: skip
                return 1
            print(f"{target}: up to date")
            return 0
        version = args.version
        if args.from_nnabla:
            descriptor, version = from_nnabla()
        elif args.proto is not None:
            descriptor = from_proto(args.proto)
        else:
            descriptor = from_descriptor_set(args.descriptor_set)
        if version is None:
            raise SchemaError("--version is required with --proto and --descriptor-set")
        text = render(module_text, _check_descriptor(descriptor), version)
    except OSError as exc:
        print(f"nnabla_schema: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    except SchemaError as exc:
        print(f"nnabla_schema: {exc}", file=sys.stderr)
        return 2
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    print(f"{target}: nnabla {version}, {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
