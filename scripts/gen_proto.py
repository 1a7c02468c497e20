"""Generate the Python stubs of proto/dgrag/v1/*.proto into shared/proto/ (reproducibly), or check them.

    python scripts/gen_proto.py           # regenerate
    python scripts/gen_proto.py --check   # fail when the checked-in stubs differ from a fresh generation

protoc names imports after the proto path (``from dgrag.v1 import common_pb2``); the stubs live in the
``shared.proto`` package, so those imports are rewritten to ``from shared.proto.dgrag.v1 import ...``.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
OUT = ROOT / "shared" / "proto"
_IMPORT = re.compile(r"^from dgrag\.v1 import ", re.MULTILINE)


def generate(into: Path) -> None:
    from grpc_tools import protoc  # dev dependency (grpcio-tools), pinned in pyproject.toml

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.glob("dgrag/v1/*.proto"))
    args = ["protoc", f"-I{PROTO_ROOT}", f"--python_out={into}", f"--pyi_out={into}", f"--grpc_python_out={into}"]
    if protoc.main([*args, *protos]) != 0:
        raise SystemExit("protoc failed")
    for path in into.rglob("*.py*"):
        path.write_text(_IMPORT.sub("from shared.proto.dgrag.v1 import ", path.read_text()))
    for package in (into, into / "dgrag", into / "dgrag" / "v1"):
        (package / "__init__.py").write_text('"""Generated gRPC stubs (scripts/gen_proto.py); do not edit."""\n')


def differences(a: Path, b: Path) -> list[str]:
    names_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    names_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    out = [f"only in one tree: {n}" for n in sorted(names_a ^ names_b)]
    out += [f"differs: {n}" for n in sorted(names_a & names_b) if not filecmp.cmp(a / n, b / n, shallow=False)]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with shared/proto instead of writing it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        generate(fresh)
        if args.check:
            diff = differences(fresh, OUT)
            for line in diff:
                print(f"gen_proto: {line}", file=sys.stderr)
            if diff:
                print("gen_proto: stubs are stale; run `python scripts/gen_proto.py` and commit", file=sys.stderr)
                return 1
            print("gen_proto: stubs match proto/")
            return 0
        shutil.rmtree(OUT, ignore_errors=True)
        shutil.copytree(fresh, OUT)
    print(f"gen_proto: wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
