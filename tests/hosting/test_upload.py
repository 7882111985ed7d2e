"""Upload checks (size, layout, syntax), content-addressed storage, the import check in the sandbox
and the validation match against a house bot."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from webapp.hosting import checks
from workers.hosting import sandbox, upload
from workers.hosting.validation import validate

UPLOADS = Path(__file__).parent / "uploads"
needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0, reason="needs bubblewrap and root"
)


def _zip(entries: dict[str, bytes], *, modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (modes or {}).get(name, stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def _stored(root: Path, filename: str, data: bytes, entry: str) -> tuple[checks.CheckedUpload, Path]:
    """Checks and stores an upload under ``root``, as the web app does."""
    root.mkdir(parents=True, exist_ok=True)
    with checks.unpacked(root, filename, data, entry) as checked:
        return checked, checks.store(root, checked)


def test_a_python_file_is_accepted_with_its_digest(tmp_path: Path) -> None:
    data = (UPLOADS / "first_bot.py").read_bytes()
    checked, folder = _stored(tmp_path, "first_bot.py", data, "first_bot:FirstBot")
    assert checked.kind == "python" and checked.files == {"first_bot.py": len(data)}
    assert (folder / "first_bot.py").read_bytes() == data
    import hashlib

    assert checked.sha256 == hashlib.sha256(data).hexdigest()


def test_a_zip_package_and_an_executable_are_accepted(tmp_path: Path) -> None:
    package = _zip(
        {
            "mybot/__init__.py": b"",
            "mybot/core.py": b"class Bot:\n    def choose(self, d, o, opts):\n        return opts[0].id\n",
        }
    )
    assert _stored(tmp_path, "bot.zip", package, "mybot.core:Bot")[0].kind == "python"
    script = _zip({"run.sh": b"#!/bin/sh\nexit 0\n"}, modes={"run.sh": stat.S_IFREG | 0o755})
    checked, folder = _stored(tmp_path, "bot.zip", script, "run.sh")
    assert checked.kind == "exec" and "run.sh" in checked.executables
    assert (folder / "run.sh").stat().st_mode & 0o777 == 0o555
    assert not list(tmp_path.glob(".upload-*"))  # the staging folders became the stored ones


@pytest.mark.parametrize(
    ("filename", "data", "entry", "reason"),
    [
        ("big.py", b"#" * (checks.MAX_UPLOAD_BYTES + 1), "big:Bot", "the limit is"),
        ("empty.py", b"", "empty:Bot", "empty"),
        ("bad.py", b"def broken(:\n", "bad:Bot", "does not compile"),
        ("bot.py", b"class Bot: pass\n", "other:Bot", "not in the upload"),
        ("bot.py", b"class Bot: pass\n", "bot:Bot; rm -rf /", "not module:Class"),
        ("b.zip", _zip({"../evil.py": b""}), "evil:Bot", "unsafe path"),
        ("b.zip", _zip({"/etc/evil.py": b""}), "evil:Bot", "unsafe path"),
        ("b.zip", _zip({"link": b"/etc/passwd"}, modes={"link": stat.S_IFLNK | 0o777}), "link", "symbolic link"),
        ("b.zip", _zip({f"f{i}.py": b"" for i in range(checks.MAX_FILES + 1)}), "f0:Bot", "files; the limit"),
        ("b.zip", _zip({"run": b""}), "../run", "neither module:Class"),
    ],
)
def test_bad_uploads_are_refused_with_the_reason(
    tmp_path: Path, filename: str, data: bytes, entry: str, reason: str
) -> None:
    with pytest.raises(checks.UploadRefused, match=reason.replace("(", r"\(")):
        _stored(tmp_path, filename, data, entry)
    assert list(tmp_path.iterdir()) == []  # the staging folder is gone


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", b"\0" * (checks.MAX_UNPACKED_BYTES + 1))
    assert len(buffer.getvalue()) < checks.MAX_UPLOAD_BYTES
    with pytest.raises(checks.UploadRefused, match="unpacks to more than"):
        _stored(tmp_path, "b.zip", buffer.getvalue(), "bot:Bot")
    assert list(tmp_path.iterdir()) == []


def test_storage_is_content_addressed_read_only_and_removable(tmp_path: Path) -> None:
    data = (UPLOADS / "first_bot.py").read_bytes()
    checked, folder = _stored(tmp_path, "first_bot.py", data, "first_bot:FirstBot")
    assert folder == checks.stored_path(tmp_path, checked.sha256)
    assert _stored(tmp_path, "first_bot.py", data, "first_bot:FirstBot")[1] == folder  # stored once
    assert not list(tmp_path.glob(".upload-*"))
    assert (folder / "first_bot.py").stat().st_mode & 0o222 == 0
    assert checks.disk_usage(tmp_path) == checked.unpacked_bytes
    assert checks.remove(tmp_path, checked.sha256) == checked.unpacked_bytes
    assert checks.disk_usage(tmp_path) == 0


@needs_sandbox
def test_import_check_runs_in_the_sandbox(tmp_path: Path) -> None:
    """A good entry imports; an import error and a module that loops at import fail with the log."""
    good = _stored(tmp_path, "first_bot.py", (UPLOADS / "first_bot.py").read_bytes(), "first_bot:FirstBot")[1]
    assert upload.run_import_check(good, "first_bot:FirstBot", slot=11) == (True, "import ok\n")
    broken = _stored(tmp_path, "bad.py", b"import no_such_module\n", "bad:Bot")[1]
    ok, log = upload.run_import_check(broken, "bad:Bot", slot=11)
    assert not ok and "No module named 'no_such_module'" in log
    loops = _stored(tmp_path, "slow.py", b"while True:\n    pass\n", "slow:Bot")[1]
    ok, log = upload.run_import_check(loops, "slow:Bot", slot=11, timeout=3)
    assert not ok and "no answer within 3 s" in log


@needs_sandbox
def test_validation_match_passes_a_sound_bot_and_fails_a_silent_one() -> None:
    """A new version enters the ladder only if its match against a house bot ends without a forfeit."""
    bot_dir = UPLOADS
    good = asyncio.run(validate(bot_dir, sandbox.BotCommand("python", "first_bot:FirstBot"), "scrumbrawl", slot=12))
    assert good.passed, (good.summary, good.log)
    assert "hosted bot starts match" in good.log
    bad = asyncio.run(validate(bot_dir, sandbox.BotCommand("python", "hostile:SilentBot"), "scrumbrawl", slot=12))
    assert not bad.passed
    assert "forfeit" in bad.summary or "incidents" in bad.summary, bad.summary
