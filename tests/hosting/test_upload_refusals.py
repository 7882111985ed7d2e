"""Bad uploads through the API: each is refused with a 400 that says why, and leaves no file and no
row behind; an accepted upload's unpacked bytes count against the author's quota; the cleanup
sweeps what a crash in the middle of an upload left.

Every zip here is a real upload through Django's test client, stored under a ``BRAWL_VAR_DIR`` of
the test's own, so "nothing left" is checked on the whole folder.
"""

from __future__ import annotations

import io
import os
import random
import stat
import struct
import time
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from rest_framework.test import APIClient

from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.hosting import checks, services
from webapp.hosting.models import HostedUpload

GAME = "scrumbrawl"
BOT_PY = b"class Bot:\n    def choose(self, decision, observation, options):\n        return options[0].id\n"
"""A sound entry module, so that each bad zip below is refused for its one fault only."""

CENTRAL = b"PK\x01\x02"
LOCAL = b"PK\x03\x04"


@pytest.fixture
def var_dir(tmp_path: Path) -> Iterator[Path]:
    """A ``BRAWL_VAR_DIR`` of the test's own; uploads go to its ``hosted`` folder, as in production."""
    var = tmp_path / "var"
    var.mkdir()
    with override_settings(VAR_DIR=var, BRAWL_HOSTED_DIR=""):
        yield var
    for folder in var.rglob("*"):
        if folder.is_dir():
            folder.chmod(0o755)


def _left_behind(var: Path) -> list[str]:
    """Everything under the var folder but the (empty) storage root itself."""
    return sorted(str(p.relative_to(var)) for p in var.rglob("*") if p != var / "hosted")


def _author(name: str) -> tuple[User, Bot, APIClient]:
    user = User.objects.create_user(name, password="x")
    bot, _ = bot_services.do_create_bot(user, GAME, f"Bot-{name}")
    client = APIClient()
    client.force_authenticate(user)
    return user, bot, client


def _post(client: APIClient, bot: Bot, name: str, data: bytes, entry: str) -> Any:
    return client.post(
        f"/api/v1/bots/{bot.pk}/upload/",
        {"file": SimpleUploadedFile(name, data), "entry": entry},
        format="multipart",
    )


def _zip(entries: list[tuple[str, bytes]], *, deflate: bool = True, mode: int = stat.S_IFREG | 0o644) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names some cases need
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, data in entries:
                info = zipfile.ZipInfo(name)
                info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
                info.external_attr = (stat.S_IFDIR | 0o755 if name.endswith("/") else mode) << 16
                archive.writestr(info, data)
    return buffer.getvalue()


def _patch(data: bytes, signature: bytes, offset: int, value: int) -> bytes:
    """Overwrites a 4-byte field of the (first) header with ``signature``: a lying zip."""
    at = data.index(signature) + offset
    return data[:at] + struct.pack("<I", value) + data[at + 4 :]


def _lying_sizes(*, central: int | None, local: int | None) -> bytes:
    """A zip whose one member (1 MiB of zeros, deflated) declares ``central`` and ``local`` sizes."""
    data = _zip([("bot.py", b"#" * (1 << 20))])
    if central is not None:
        data = _patch(data, CENTRAL, 24, central)  # uncompressed size in the central directory
    if local is not None:
        data = _patch(data, LOCAL, 22, local)  # uncompressed size in the local header
    return data


def _corrupt_member() -> bytes:
    """A sound 1 MiB member, then one whose deflate stream is garbage: the unpacker raises midway."""
    good = b"x = 1\n" * (1 << 17)
    data = _zip([("bot.py", BOT_PY), ("big.py", good), ("broken.py", random.Random(24).randbytes(4000))])
    start = data.index(LOCAL, data.index(b"broken.py") - 40) + 30 + len("broken.py")
    return data[:start] + b"\xff" * 64 + data[start + 64 :]


def _bomb() -> bytes:
    """17 MiB of zeros in a 17 KB zip, both headers declaring 1 KiB: the declared sizes hide the bomb."""
    data = _zip([("bot.py", BOT_PY), ("zeros.py", b"\0" * (17 << 20))])
    at = data.index(b"zeros.py")
    local = data.rindex(LOCAL, 0, at)
    central = data.index(CENTRAL)
    central = data.index(CENTRAL, central + 4)  # the second member's central entry
    for offset in (local + 22, central + 24):
        data = data[:offset] + struct.pack("<I", 1024) + data[offset + 4 :]
    return data


def _bad_utf8_name() -> bytes:
    data = _zip([("bot.py", BOT_PY), ("caf\u00e9.py", b"")])
    # The UTF-8 flag stays set while the name's bytes are made invalid UTF-8.
    return data.replace("caf\u00e9.py".encode(), b"caf\xff\xfe.py")


BAD_ZIPS: list[tuple[str, bytes, str]] = [
    ("a file and a folder of one name", _zip([("bot.py", BOT_PY), ("x", b"a"), ("x/y", b"b")]), "both a file and"),
    ("a folder entry over a file", _zip([("bot.py", BOT_PY), ("x", b"a"), ("x/", b"")]), "both a file and"),
    ("a 300-character name", _zip([("bot.py", BOT_PY), ("a" * 300 + ".py", b"")]), "bytes long; the limit"),
    (
        "a path too long in total",
        _zip([("bot.py", BOT_PY), ("/".join(["d" * 100] * 6) + "/m.py", b"")]),
        "bytes long in all; the limit",
    ),
    ("too deep", _zip([("bot.py", BOT_PY), ("/".join("d" * 20) + "/m.py", b"")]), "folders deep; the limit"),
    ("a duplicate name", _zip([("bot.py", BOT_PY), ("bot.py", b"x = 1\n")]), "twice"),
    ("too many members", _zip([("bot.py", BOT_PY)] + [(f"d{i}/", b"") for i in range(1000)]), "entries; the limit"),
    ("an absolute path", _zip([("bot.py", BOT_PY), ("/etc/evil.py", b"")]), "unsafe path"),
    ("a traversal", _zip([("bot.py", BOT_PY), ("a/../../evil.py", b"")]), "unsafe path"),
    ("a symbolic link", _zip([("bot.py", BOT_PY), ("link", b"/etc")], mode=stat.S_IFLNK | 0o777), "symbolic link"),
    ("a device", _zip([("bot.py", BOT_PY), ("dev", b"")], mode=stat.S_IFCHR | 0o666), "not a regular file"),
    ("a control character", _zip([("bot.py", BOT_PY), ("a\nb.py", b"")]), "control character"),
    ("a name not in UTF-8", _bad_utf8_name(), "damaged"),
    ("declared small, inflates larger", _lying_sizes(central=10, local=10), "damaged"),
    ("declared large, inflates smaller", _lying_sizes(central=(1 << 20) + 999, local=(1 << 20) + 999), "damaged"),
    ("central directory smaller than the local header", _lying_sizes(central=10, local=None), "damaged"),
    ("central directory larger than the local header", _lying_sizes(central=(1 << 20) + 1, local=None), "damaged"),
    ("a bomb hidden by its declared sizes", _bomb(), "damaged"),
    ("a member that makes the unpacker raise", _corrupt_member(), "damaged"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("case", "data", "reason"), BAD_ZIPS, ids=[c[0] for c in BAD_ZIPS])
def test_a_bad_zip_is_refused_with_a_400_and_leaves_nothing(var_dir: Path, case: str, data: bytes, reason: str) -> None:
    """Each bad zip gets a 400 naming its fault; no file is left under BRAWL_VAR_DIR and no row is made."""
    assert len(data) <= checks.MAX_UPLOAD_BYTES, case
    _, bot, client = _author("bad-zip")
    answer = _post(client, bot, "bot.zip", data, "bot:Bot")
    assert answer.status_code == 400, (case, answer.content)
    detail = answer.json()["detail"]
    assert reason in detail, (case, detail)
    assert str(var_dir) not in detail  # the sentence is for the author, not a server path
    assert _left_behind(var_dir) == [], case
    assert HostedUpload.objects.count() == 0


@pytest.mark.django_db
def test_an_honest_bomb_is_refused_before_any_byte_is_written(var_dir: Path) -> None:
    """Declared sizes over the 16 MiB limit are refused from the listing alone."""
    data = _zip([("bot.py", BOT_PY)] + [(f"z{i}.py", b"\0" * (1 << 20)) for i in range(17)])
    _, bot, client = _author("bomb")
    answer = _post(client, bot, "bot.zip", data, "bot:Bot")
    assert answer.status_code == 400 and "unpacks to more than" in answer.json()["detail"]
    assert _left_behind(var_dir) == []


@pytest.mark.django_db
def test_a_single_file_with_a_300_character_name_is_refused(var_dir: Path) -> None:
    _, bot, client = _author("long-file")
    name = "b" * 300
    answer = _post(client, bot, name + ".py", BOT_PY, f"{name}:Bot")
    assert answer.status_code == 400 and "bytes long; the limit" in answer.json()["detail"]
    assert _left_behind(var_dir) == []


@pytest.mark.django_db
def test_a_sound_zip_is_stored_and_its_unpacked_bytes_count_against_the_quota(
    var_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stored bytes are the bytes on disk; an upload past the quota is refused and leaves nothing."""
    user, bot, client = _author("quota-zip")
    package = _zip([("bot.py", BOT_PY), ("lib/data.py", b'DATA = "' + b"1" * 50_000 + b'"\n')])
    answer = _post(client, bot, "bot.zip", package, "bot:Bot")
    assert answer.status_code == 201, answer.content
    row = HostedUpload.objects.get()
    folder = checks.stored_path(var_dir / "hosted", row.sha256)
    on_disk = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert row.stored_bytes == on_disk == len(BOT_PY) + 50_010
    assert services.author_stored_bytes(user) == on_disk
    before = _left_behind(var_dir)
    monkeypatch.setattr(services, "STORED_BYTES_PER_AUTHOR", on_disk + 1000)
    other = _zip([("bot.py", BOT_PY), ("more.py", b"#" * 2000)])
    refused = _post(client, bot, "bot.zip", other, "bot:Bot")
    assert refused.status_code == 400 and "the limit is" in refused.json()["detail"]
    assert _left_behind(var_dir) == before and HostedUpload.objects.count() == 1


@pytest.mark.django_db
def test_cleanup_sweeps_stale_upload_leftovers_and_orphan_folders(var_dir: Path) -> None:
    """What a crash mid-upload leaves (a ``.upload-*`` staging folder, or a stored folder no row names)
    is removed once older than the bound; a fresh one may be an upload in progress and stays."""
    root = services.storage_root()
    old = time.time() - services.STALE_UPLOAD_SECONDS - 60

    def leftover(path: Path, *, stale: bool) -> Path:
        (path / "pkg").mkdir(parents=True)
        (path / "pkg" / "junk.py").write_bytes(b"#" * 4096)
        (path / "pkg" / "junk.py").chmod(0o444)
        for folder in (path / "pkg", path):
            folder.chmod(0o555)
            if stale:
                os.utime(folder, (old, old))
        return path

    stale = leftover(root / ".upload-crashed", stale=True)
    old_place = leftover(root / "ab" / ".upload-crashed", stale=True)
    fresh = leftover(root / ".upload-inflight", stale=False)
    orphan = leftover(root / "cd" / ("cd" + "0" * 62), stale=True)
    report = services.do_cleanup()
    assert not stale.exists() and not old_place.exists() and not orphan.exists()
    assert fresh.exists()
    assert report.stale_removed == 3
    assert report.stored_bytes == 4096  # the fresh one only


@pytest.mark.django_db
def test_the_bot_page_form_refuses_a_bad_zip_with_its_reason_and_keeps_nothing(var_dir: Path) -> None:
    """The page's form writes through the same path: the author reads the sentence, nothing is kept."""
    user, bot, _ = _author("page-zip")
    browser = Client()
    browser.force_login(user)
    data = _zip([("bot.py", BOT_PY), ("x", b"a"), ("x/y", b"b")])
    answer = browser.post(
        f"/hosted/bots/{bot.pk}/upload/",
        {"file": SimpleUploadedFile("bot.zip", data), "entry": "bot:Bot"},
        follow=True,
    )
    assert answer.status_code == 200
    assert "Upload refused: the zip holds &#x27;x&#x27; as both a file and a folder" in answer.content.decode()
    assert _left_behind(var_dir) == [] and HostedUpload.objects.count() == 0
