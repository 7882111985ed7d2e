"""The checks of an uploaded bot that run nothing (size, layout, syntax) and its content-addressed storage.

Three kinds of upload are accepted:

- a single Python file ``name.py``, entry ``name:Class`` (a class written with the SDK);
- a zip of a Python package, entry ``module:Class`` naming a module inside the zip;
- a zip or a single file holding an executable that speaks the bot protocol, entry its path
  (no colon), run as ``ENTRY --server unix:/run/brawl/referee.sock`` with ``BRAWL_TOKEN`` set.

The checks here execute nothing (zip listing, ``compile()`` of each Python file); the import check
runs the entry point in the sandbox (``workers.hosting.upload``). An upload is unpacked into a
staging folder ``<root>/.upload-*`` (:func:`unpacked`), which is removed on leaving whatever
happens, unless :func:`store` has moved it to its place: ``<root>/<sha256[:2]>/<sha256>/``, so
the same bytes uploaded twice take the space once, and a folder is deleted only when no version
refers to it. The whole listing is checked before a byte is written (names, kinds, counts,
declared sizes); the bytes written are counted as they inflate, whatever the zip declares. Any
error while unpacking, expected or not, is an :class:`UploadRefused`. A staging folder a crash
left behind is found by :func:`stale_leftovers`. The web app accepts uploads with these; the
workers' host finds the stored files with them.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import shutil
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

logger = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 2 * 1024 * 1024
"""Largest upload accepted (the file as sent): under the API's 2.5 MiB request body limit."""
MAX_UNPACKED_BYTES = 16 * 1024 * 1024
"""Largest total size of a zip's files once unpacked, counted as they inflate."""
MAX_FILES = 400
"""Most files in a zip."""
MAX_MEMBERS = 1000
"""Most entries (files and folders) in a zip's listing."""
MAX_NAME_PART_BYTES = 128
"""Longest file or folder name in an upload, in UTF-8 bytes (the file system's limit is 255)."""
MAX_PATH_BYTES = 512
"""Longest path of a file in an upload, in UTF-8 bytes."""
MAX_DEPTH = 16
"""Most folders a file of an upload may be in, one inside the other."""
STAGING_PREFIX = ".upload-"
"""The name prefix of staging folders under the storage root."""
ZIP_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
"""Compression methods accepted in a zip."""
CHUNK = 64 * 1024
ENTRY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")
EXEC_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class UploadRefused(ValueError):
    """The upload breaks a rule; the message says which, for the author."""


@dataclass(frozen=True)
class CheckedUpload:
    """An upload that passed the checks that need no sandbox, unpacked in its staging folder."""

    kind: str
    """``python`` or ``exec``."""
    entry: str
    sha256: str
    size: int
    """Bytes as uploaded."""
    files: dict[str, int]
    """Relative path -> bytes written, as they will be stored."""
    executables: frozenset[str]
    staging: Path
    """The folder holding the unpacked files until :func:`store` moves it."""

    @property
    def unpacked_bytes(self) -> int:
        """Total size of the stored files, as written (never as declared)."""
        return sum(self.files.values())


def _shown(name: str) -> str:
    """A name as a refusal quotes it: at most 60 characters."""
    return repr(name if len(name) <= 60 else name[:57] + "...")


def _safe_name(name: str) -> str:
    """``name`` as a relative path to store, or :class:`UploadRefused` saying what is wrong with it."""
    if _CONTROL.search(name):
        raise UploadRefused(f"the name {_shown(name)} holds a control character")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or "\\" in name:
        raise UploadRefused(f"the zip holds an unsafe path {_shown(name)} (absolute, '..' or backslashes)")
    try:
        encoded = [part.encode() for part in path.parts]
    except UnicodeEncodeError as exc:
        raise UploadRefused(f"the name {_shown(name)} is not valid Unicode") from exc
    for part in encoded:
        if len(part) > MAX_NAME_PART_BYTES:
            raise UploadRefused(
                f"the name {_shown(name)} has a part {len(part)} bytes long; the limit is {MAX_NAME_PART_BYTES}"
            )
    if len(path.parts) - 1 > MAX_DEPTH:
        raise UploadRefused(f"{_shown(name)} is {len(path.parts) - 1} folders deep; the limit is {MAX_DEPTH}")
    total = len(str(path).encode())
    if total > MAX_PATH_BYTES:
        raise UploadRefused(f"the path {_shown(name)} is {total} bytes long in all; the limit is {MAX_PATH_BYTES}")
    return str(path)


def _plan(archive: zipfile.ZipFile) -> tuple[list[tuple[str, zipfile.ZipInfo]], set[str]]:
    """Checks a zip's whole listing before anything is written; returns its files and its folders."""
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise UploadRefused(f"the zip holds {len(members)} entries; the limit is {MAX_MEMBERS}")
    files: list[tuple[str, zipfile.ZipInfo]] = []
    names: set[str] = set()
    folders: set[str] = set()
    for member in members:
        name = _safe_name(member.filename)
        if member.flag_bits & 0x1:
            raise UploadRefused(f"the zip's entry {_shown(name)} is encrypted")
        kind = stat.S_IFMT(member.external_attr >> 16)
        if member.is_dir():
            folders.add(name)
            continue
        if kind == stat.S_IFLNK:
            raise UploadRefused(f"the zip holds a symbolic link {_shown(name)}")
        if kind not in (0, stat.S_IFREG):
            raise UploadRefused(f"the zip's entry {_shown(name)} is not a regular file")
        if member.compress_type not in ZIP_METHODS:
            raise UploadRefused(
                f"the zip's entry {_shown(name)} uses compression method {member.compress_type}; "
                f"only {' and '.join(ZIP_METHODS.values())} are accepted"
            )
        if name in names:
            raise UploadRefused(f"the zip holds {_shown(name)} twice")
        names.add(name)
        files.append((name, member))
    if len(files) > MAX_FILES:
        raise UploadRefused(f"the zip holds {len(files)} files; the limit is {MAX_FILES}")
    parents = {str(p) for name in names for p in PurePosixPath(name).parents if str(p) != "."}
    clash = sorted(names & (parents | folders))
    if clash:
        raise UploadRefused(f"the zip holds {_shown(clash[0])} as both a file and a folder")
    if sum(member.file_size for _, member in files) > MAX_UNPACKED_BYTES:
        raise UploadRefused(f"the zip unpacks to more than {MAX_UNPACKED_BYTES} bytes")
    return files, folders | parents


def _create(staging: Path, name: str) -> io.BufferedWriter:
    """Opens a new file of the staging folder for writing; never follows a link, never reuses a file."""
    path = staging / name
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    return os.fdopen(os.open(path, flags, 0o644), "wb")


def _unpack_zip(archive: zipfile.ZipFile, staging: Path) -> tuple[dict[str, int], set[str]]:
    """Writes a checked zip's files, counting the bytes as they inflate; returns sizes and executables."""
    members, folders = _plan(archive)
    for folder in sorted(folders):
        (staging / folder).mkdir(parents=True, exist_ok=True)
    written: dict[str, int] = {}
    executables: set[str] = set()
    total = 0
    for name, member in members:
        size = 0
        with archive.open(member) as source, _create(staging, name) as target:
            while chunk := source.read(CHUNK):
                size += len(chunk)
                total += len(chunk)
                if total > MAX_UNPACKED_BYTES:
                    raise UploadRefused(f"the zip unpacks to more than {MAX_UNPACKED_BYTES} bytes")
                if size > member.file_size:
                    break
                target.write(chunk)
        if size != member.file_size:
            raise UploadRefused(
                f"the zip is damaged: its entry {_shown(name)} "
                f"{'holds more than' if size > member.file_size else f'is {size} bytes, not'} "
                f"the {member.file_size} bytes it declares"
            )
        written[name] = size
        if (member.external_attr >> 16) & 0o111:
            executables.add(name)
    return written, executables


def _unexpected(exc: Exception) -> str:
    """The author's sentence for an error the checks did not name."""
    if isinstance(exc, zipfile.BadZipFile):
        return f"the zip is damaged: {exc}"
    if isinstance(exc, zlib.error):
        return "the zip is damaged: an entry's compressed data does not inflate"
    if isinstance(exc, EOFError):
        return "the zip is damaged: an entry's data ends before its declared size"
    return f"the zip is damaged or uses a feature that is not supported ({type(exc).__name__}); nothing of it was kept"


def _unpack(staging: Path, filename: str, data: bytes, entry: str) -> CheckedUpload:
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadRefused(f"the upload is {len(data)} bytes; the limit is {MAX_UPLOAD_BYTES}")
    if not data:
        raise UploadRefused("the upload is empty")
    entry = entry.strip()
    python = ":" in entry
    if python and not ENTRY_RE.match(entry):
        raise UploadRefused(f"entry {_shown(entry)} is not module:Class (e.g. mybot:MyBot)")
    if not python and not EXEC_RE.match(entry):
        raise UploadRefused(f"entry {_shown(entry)} is neither module:Class nor a relative path to an executable")
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            files, executables = _unpack_zip(archive, staging)
    else:
        name = _safe_name(PurePosixPath(filename).name or "bot")
        with _create(staging, name) as target:
            target.write(data)
        files, executables = {name: len(data)}, set()
        if not python:
            executables.add(name)
    if python:
        module = entry.split(":", 1)[0]
        candidates = {module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"}
        if not candidates & files.keys():
            raise UploadRefused(f"entry module {module!r} is not in the upload (looked for {sorted(candidates)})")
        for name in files:
            if name.endswith(".py"):
                try:
                    compile((staging / name).read_bytes(), name, "exec", dont_inherit=True)
                except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
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
        staging=staging,
    )


@contextmanager
def unpacked(root: Path, filename: str, data: bytes, entry: str) -> Iterator[CheckedUpload]:
    """Unpacks and checks an upload in a staging folder under ``root``; yields what passed.

    The staging folder is removed on leaving the block, however it is left (a refusal, an
    unexpected error, a quota the caller enforces), unless :func:`store` moved it into place.

    Raises:
        UploadRefused: with the reason, for the author; any error while unpacking becomes one.
    """
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
    try:
        try:
            checked = _unpack(staging, filename, data, entry)
        except UploadRefused:
            raise
        except Exception as exc:
            logger.warning("upload: unpacking %s failed unexpectedly", filename[:100], exc_info=True)
            raise UploadRefused(_unexpected(exc)) from exc
        yield checked
    finally:
        discard(staging)


def stored_path(root: Path, sha256: str) -> Path:
    """The folder an upload with this digest is stored in."""
    return root / sha256[:2] / sha256


def store(root: Path, upload: CheckedUpload) -> Path:
    """Moves an upload's staging folder into place (readable by the sandbox's uids, writable by none).

    The same bytes stored before keep their folder (its time is renewed, so that the cleanup's
    sweep of folders no row names leaves it to the row about to be written) and the staging
    folder is left for :func:`unpacked` to remove. Returns the stored folder.
    """
    target = stored_path(root, upload.sha256)
    if target.is_dir():
        os.utime(target)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Parents must be walkable by the sandbox's uids.
    target.parent.chmod(0o755)
    staging = upload.staging
    for name in upload.files:
        (staging / name).chmod(0o555 if name in upload.executables else 0o444)
    for folder in [staging, *(p for p in staging.rglob("*") if p.is_dir())]:
        folder.chmod(0o555)
    try:
        staging.rename(target)
    except OSError:
        if not target.is_dir():
            raise
        # The same bytes, stored by a concurrent upload in the meantime.
    return target


def _writable(folder: Path) -> None:
    """Makes a folder tree's folders writable again, so that it can be removed."""
    for path in [folder, *(p for p in folder.rglob("*") if p.is_dir() and not p.is_symlink())]:
        with suppress(OSError):
            path.chmod(0o755)


def discard(folder: Path) -> None:
    """Removes a staging (or stored) folder and all it holds, read-only parts included; never raises."""
    if not folder.exists():
        return
    _writable(folder)
    shutil.rmtree(folder, ignore_errors=True)


def remove(root: Path, sha256: str) -> int:
    """Deletes a stored upload; returns the bytes freed."""
    target = stored_path(root, sha256)
    if not target.is_dir():
        return 0
    freed = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    _writable(target)
    shutil.rmtree(target)
    return freed


def stale_leftovers(root: Path, needed: set[str], older_than: float) -> list[Path]:
    """Folders under ``root`` no upload needs, last changed before ``older_than`` (POSIX seconds).

    These are staging folders (``.upload-*``, directly under the root or, as older code made them,
    one level down) that a crash left, and stored folders whose digest is not in ``needed`` (their
    row was never committed). Younger ones may belong to an upload in progress and are not listed.
    """
    if not root.is_dir():
        return []
    found: list[Path] = []
    for path in root.glob(STAGING_PREFIX + "*"):
        found.append(path)
    for shelf in root.iterdir():
        if len(shelf.name) != 2 or not shelf.is_dir() or shelf.is_symlink():
            continue
        for path in shelf.iterdir():
            if path.name.startswith(STAGING_PREFIX) or (path.name.startswith(shelf.name) and path.name not in needed):
                found.append(path)
    return [p for p in found if p.lstat().st_mtime < older_than]


def disk_usage(root: Path) -> int:
    """Bytes of every stored upload."""
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.is_dir() else 0
