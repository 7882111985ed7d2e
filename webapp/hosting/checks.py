"""The checks of an uploaded bot that run nothing (size, layout, syntax) and its content-addressed storage.

Three kinds of upload are accepted:

- a single Python file ``name.py``, entry ``name:Class`` (a class written with the SDK);
- a zip of a Python package, entry ``module:Class`` naming a module inside the zip;
- a zip or a single file holding an executable that speaks the bot protocol, entry its path
  (no colon), run as ``ENTRY --server unix:/run/brawl/referee.sock`` with ``BRAWL_TOKEN`` set.

The checks here execute nothing (zip listing, ``compile()`` of each Python file); the import check
runs the entry point in the sandbox (``workers.hosting.upload``). A stored upload is
content-addressed: ``<root>/<sha256[:2]>/<sha256>/`` holds the unpacked files, so the same bytes
uploaded twice take the space once, and a folder is deleted only when no version refers to it.
The web app accepts uploads with these; the workers' host finds the stored files with them.
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_UPLOAD_BYTES = 2 * 1024 * 1024
"""Largest upload accepted (the file as sent): under the API's 2.5 MiB request body limit."""
MAX_UNPACKED_BYTES = 16 * 1024 * 1024
"""Largest total size of a zip's files once unpacked."""
MAX_FILES = 400
"""Most files in a zip."""
ENTRY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")
EXEC_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*$")


class UploadRefused(ValueError):
    """The upload breaks a rule; the message says which, for the author."""


@dataclass(frozen=True)
class CheckedUpload:
    """An upload that passed the checks that need no sandbox."""

    kind: str
    """``python`` or ``exec``."""
    entry: str
    sha256: str
    size: int
    """Bytes as uploaded."""
    files: dict[str, bytes]
    """Relative path -> contents, as they will be stored."""
    executables: frozenset[str]

    @property
    def unpacked_bytes(self) -> int:
        """Total size of the stored files."""
        return sum(len(data) for data in self.files.values())


def _safe_name(name: str) -> str:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or name.startswith("\\") or "\\" in name:
        raise UploadRefused(f"the zip holds an unsafe path {name!r} (absolute, '..' or backslashes)")
    return str(path)


def check(filename: str, data: bytes, entry: str) -> CheckedUpload:
    """Checks an upload's size, layout and Python syntax; returns what to store.

    Raises:
        UploadRefused: with the reason, for the author.
    """
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadRefused(f"the upload is {len(data)} bytes; the limit is {MAX_UPLOAD_BYTES}")
    if not data:
        raise UploadRefused("the upload is empty")
    entry = entry.strip()
    python = ":" in entry
    if python and not ENTRY_RE.match(entry):
        raise UploadRefused(f"entry {entry!r} is not module:Class (e.g. mybot:MyBot)")
    if not python and not EXEC_RE.match(entry):
        raise UploadRefused(f"entry {entry!r} is neither module:Class nor a relative path to an executable")
    files: dict[str, bytes] = {}
    executables: set[str] = set()
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            if len(members) > MAX_FILES:
                raise UploadRefused(f"the zip holds {len(members)} files; the limit is {MAX_FILES}")
            total = 0
            for member in members:
                name = _safe_name(member.filename)
                mode = member.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise UploadRefused(f"the zip holds a symbolic link {name!r}")
                total += member.file_size
                if total > MAX_UNPACKED_BYTES:
                    raise UploadRefused(f"the zip unpacks to more than {MAX_UNPACKED_BYTES} bytes")
                with archive.open(member) as handle:
                    # Read at most the declared size plus one byte: a zip that lies about sizes is refused.
                    content = handle.read(member.file_size + 1)
                if len(content) != member.file_size:
                    raise UploadRefused(f"the zip's entry {name!r} is not the size it declares")
                files[name] = content
                if mode & 0o111:
                    executables.add(name)
    else:
        name = _safe_name(PurePosixPath(filename).name or "bot")
        files[name] = data
        if not python:
            executables.add(name)
    if python:
        module = entry.split(":", 1)[0]
        candidates = {module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"}
        if not candidates & files.keys():
            raise UploadRefused(f"entry module {module!r} is not in the upload (looked for {sorted(candidates)})")
        for name, content in files.items():
            if name.endswith(".py"):
                try:
                    compile(content, name, "exec", dont_inherit=True)
                except (SyntaxError, ValueError) as exc:
                    raise UploadRefused(f"{name} does not compile: {exc}") from exc
    else:
        if entry not in files:
            raise UploadRefused(f"the executable {entry!r} is not in the upload")
        executables.add(entry)
    return CheckedUpload(
        kind="python" if python else "exec",
        entry=entry,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        files=files,
        executables=frozenset(executables),
    )


def stored_path(root: Path, sha256: str) -> Path:
    """The folder an upload with this digest is stored in."""
    return root / sha256[:2] / sha256


def store(root: Path, upload: CheckedUpload) -> Path:
    """Writes the upload's files (readable by the sandbox's uids, writable by none) and returns its folder."""
    target = stored_path(root, upload.sha256)
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".upload-", dir=target.parent))
    for name, content in upload.files.items():
        path = staging / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        path.chmod(0o555 if name in upload.executables else 0o444)
    for folder in [staging, *(p for p in staging.rglob("*") if p.is_dir())]:
        folder.chmod(0o555)
    staging.rename(target)
    # Parents must be walkable by the sandbox's uids (mkdtemp made them private).
    target.parent.chmod(0o755)
    return target


def remove(root: Path, sha256: str) -> int:
    """Deletes a stored upload; returns the bytes freed."""
    target = stored_path(root, sha256)
    if not target.is_dir():
        return 0
    freed = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    for folder in [target, *(p for p in target.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    shutil.rmtree(target)
    return freed


def disk_usage(root: Path) -> int:
    """Bytes of every stored upload."""
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.is_dir() else 0
