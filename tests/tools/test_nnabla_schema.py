"""tools/nnabla_schema.py writes engine/formats/nnabla/schema.py (docs/adding-a-layer.md §5)."""

import base64
import re
import runpy
import subprocess
import sys
import zlib
from pathlib import Path

from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "nnabla_schema.py"
SCHEMA = ROOT / "engine" / "formats" / "nnabla" / "schema.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def _descriptor() -> descriptor_pb2.FileDescriptorProto:
    """The schema schema.py holds, decoded here independently of the script."""
    block = SCHEMA.read_text(encoding="utf-8").split("_DESCRIPTOR = (", 1)[1].split(")", 1)[0]
    data = zlib.decompress(base64.b64decode("".join(re.findall(r'"([^"]*)"', block))))
    return descriptor_pb2.FileDescriptorProto.FromString(data)


def _descriptor_set(tmp_path, proto) -> Path:
    path = tmp_path / "nnabla.desc"
    path.write_bytes(descriptor_pb2.FileDescriptorSet(file=[proto]).SerializeToString())
    return path


def test_schema_py_is_the_scripts_output():
    result = _run("--check")
    assert result.returncode == 0, result.stderr
    assert "up to date" in result.stdout


def test_the_same_schema_regenerates_schema_py_byte_for_byte(tmp_path):
    out = tmp_path / "schema.py"
    result = _run("--descriptor-set", str(_descriptor_set(tmp_path, _descriptor())),
                  "--version", "1.39.0", "--output", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == SCHEMA.read_bytes()


def test_a_new_function_parameter_message_reaches_the_module(tmp_path):
    # What a new nnabla function brings: a <snake>_param message and a field in Function's oneof.
    proto = _descriptor()
    message = proto.message_type.add(name="FooBarParameter")
    message.field.add(name="axis", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
                      label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)  # fmt: skip
    function = next(m for m in proto.message_type if m.name == "Function")
    oneof = next(f.oneof_index for f in function.field if f.name == "convolution_param")
    function.field.add(name="foo_bar_param", number=9999, type_name=".FooBarParameter",
                       type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE, oneof_index=oneof,
                       label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)  # fmt: skip
    out = tmp_path / "schema.py"
    result = _run("--descriptor-set", str(_descriptor_set(tmp_path, proto)),
                  "--version", "9.9.9", "--output", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    module = runpy.run_path(str(out))
    assert module["NNABLA_VERSION"] == "9.9.9"
    fn = module["message_class"]("Function")(type="FooBar")
    fn.foo_bar_param.axis = 3
    assert fn.WhichOneof(function.oneof_decl[oneof].name) == "foo_bar_param"
    assert _run("--check", "--output", str(out)).returncode == 0


def test_a_hand_edited_block_fails_the_check(tmp_path):
    # Re-cut at another width: the same bytes, but not what the script writes.
    text = SCHEMA.read_text(encoding="utf-8")
    block = text.split("_DESCRIPTOR = (\n", 1)[1].split("\n)\n", 1)[0]
    joined = "".join(re.findall(r'"([^"]*)"', block))
    recut = "\n".join(f'    "{joined[i : i + 80]}"' for i in range(0, len(joined), 80))
    edited = tmp_path / "schema.py"
    edited.write_text(text.replace(block, recut), encoding="utf-8")
    result = _run("--check", "--output", str(edited))
    assert result.returncode == 1
    assert (
        result.stderr.strip() == f"{edited}: not what tools/nnabla_schema.py writes for the "
        "schema it holds; regenerate it"
    )


def test_a_descriptor_set_without_nnabla_proto_is_one_line(tmp_path):
    other = descriptor_pb2.FileDescriptorProto(name="other.proto")
    result = _run("--descriptor-set", str(_descriptor_set(tmp_path, other)), "--version", "1",
                  "--output", str(tmp_path / "schema.py"))  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip().endswith("holds no nnabla.proto (other.proto)")
    assert "Traceback" not in result.stderr and not (tmp_path / "schema.py").exists()
