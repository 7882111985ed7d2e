"""Generates the Python protocol code from ``proto/**/*.proto``: the one command (``make proto``).

``python -m referee.protogen`` writes ``*_pb2.py``, ``*_pb2.pyi`` and ``*_pb2_grpc.py`` beside
each ``.proto`` file; ``--check`` generates into a temporary folder and exits 1, naming the files,
when the checked-in code differs. Needs the ``dev`` extra (grpcio-tools).
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent.parent / "proto"
SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")


def proto_files(root: Path = PROTO_ROOT) -> list[Path]:
    """Returns every ``.proto`` file under ``root``, sorted."""
    return sorted(root.rglob("*.proto"))


def generate(out: Path, root: Path = PROTO_ROOT) -> list[Path]:
    """Runs protoc on every ``.proto`` under ``root``, writing into ``out``.

    Returns:
        The generated files, relative to ``out``.

    Raises:
        RuntimeError: protoc failed; the message carries its exit status.
    """
    from grpc_tools import protoc  # dev dependency: imported only when generating

    files = [str(p.relative_to(root)) for p in proto_files(root)]
    include = Path(protoc.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{root}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *files,
    ]
    status = protoc.main(args)
    if status != 0:
        raise RuntimeError(f"protoc exited with status {status}")
    return sorted(p.relative_to(out) for p in out.rglob("*") if p.name.endswith(SUFFIXES))


def stale_files(root: Path = PROTO_ROOT) -> list[str]:
    """Returns the generated files that are missing, extra or differ from a fresh generation."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate(Path(tmp), root)
        problems = [
            str(rel)
            for rel in fresh
            if not (root / rel).exists() or not filecmp.cmp(Path(tmp) / rel, root / rel, shallow=False)
        ]
        fresh_set = {str(r) for r in fresh}
        problems += [
            str(p.relative_to(root))
            for p in root.rglob("*")
            if p.name.endswith(SUFFIXES) and str(p.relative_to(root)) not in fresh_set
        ]
    return sorted(problems)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m referee.protogen``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="only check that the generated code is current")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files()
        if stale:
            print("generated code is out of date; run `make proto`:", *stale, sep="\n  ")
            return 1
        print("generated code is current")
        return 0
    written = generate(PROTO_ROOT)
    print(f"generated {len(written)} files under {PROTO_ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
