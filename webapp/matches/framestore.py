"""Spectator frames computed once per replay and stored (``MatchFrames``), for the replay viewer.

A long ScrumBrawl match (about 1,200 decisions) takes about a second to re-simulate and makes 7 MB
of frames JSON, 130 kB gzipped. The frames are computed when the result is recorded
(:func:`store_frames_after_record`, after the recording transaction commits), or on the first
request for a match recorded before, and kept gzipped in the database, so opening a replay reads one
row and sends the stored bytes as they are. Storing frames reveals nothing: they hold only the
spectator's view; whether they may be *served* is still decided by the replay's reveal rule.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import time
from typing import cast

import orjson
from django.core.cache import cache

from referee.core.errors import EngineError
from referee.core.registry import UnknownGameError
from referee.core.replay import Replay, ReplayError
from webapp.matches.frames import FRAMES_VERSION, PATCH_VERSION, patch_frames, spectator_frames
from webapp.matches.models import Match, MatchFrames

log = logging.getLogger(__name__)

LOCK_SECONDS = 60
"""How long one process may hold the right to compute a replay's frames."""
LOCK_POLL_SECONDS = 0.2
"""How often a request waiting for another's computation looks for the result."""
LOCK_POLLS = 150
"""How many times it looks before computing the frames itself (30 s)."""


def replay_digest(raw: bytes) -> str:
    """The SHA-256 of a replay's JSON bytes and the frames' form, which names the frames computed from it.

    The form (:data:`~webapp.matches.frames.FRAMES_VERSION`) is part of it, so frames stored (or cached)
    in another form never match and are recomputed on first request: old rows stay readable, and are
    regenerated instead of served without the fields the viewer draws.
    """
    return hashlib.sha256(b"frames-v%d\n" % FRAMES_VERSION + raw).hexdigest()


def _stored(match_id: int, digest: str) -> bytes | None:
    row = MatchFrames.objects.filter(match_id=match_id, replay_digest=digest).values_list("frames_gz", flat=True)
    found = row.first()
    return bytes(found) if found is not None else None


def frames_gz(match_id: int, raw: bytes) -> bytes:
    """Returns the gzipped frames JSON of replay ``raw`` of match ``match_id``, computing them at most once.

    A lock in the shared cache makes concurrent first requests wait for one computation instead of
    each running their own.

    Raises:
        ReplayError, EngineError, UnknownGameError, ImportError: the engine could not re-simulate it.
    """
    digest = replay_digest(raw)
    lock = f"frames:lock:{match_id}:{digest[:16]}"
    for _ in range(LOCK_POLLS):
        found = _stored(match_id, digest)
        if found is not None:
            return found
        if cache.add(lock, 1, timeout=LOCK_SECONDS):
            break
        time.sleep(LOCK_POLL_SECONDS)  # another process is computing them
    try:
        data = gzip.compress(orjson.dumps(spectator_frames(Replay.loads(raw))), mtime=0)
        MatchFrames.objects.update_or_create(match_id=match_id, defaults={"replay_digest": digest, "frames_gz": data})
    finally:
        cache.delete(lock)
    return data


def store_frames_after_record(match_id: int) -> None:
    """Computes and stores the frames of a just-recorded match; a failure is logged, never raised.

    Called after the recording transaction commits, so a replay the viewer cannot simulate (an
    engine error, a game no longer installed) never undoes the result; the frames endpoint reports
    the error when asked.
    """
    match = Match.objects.only("id", "replay_gz", "replay_path").filter(pk=match_id).first()
    raw = match.replay_bytes() if match is not None else None
    if raw is None:
        return
    try:
        patched_frames_gz(match_id, raw)  # stores the frames, and caches their patch form for the viewer
    except (ReplayError, EngineError, UnknownGameError, ImportError) as exc:
        log.warning("no frames for match %s: %s", match_id, exc, extra={"match_id": match_id})


PATCHED_CACHE_SECONDS = 30 * 24 * 3600
"""How long the patch form of a replay's frames stays in the cache (it is rebuilt from the stored frames)."""


def patched_frames_gz(match_id: int, raw: bytes) -> bytes:
    """The frames of :func:`frames_gz` with each observation after the first sent as a patch of the one before.

    Every frame carries the whole spectator observation, and a long ScrumBrawl match makes 8 MB
    of them whose parse dominated the viewer's open time; consecutive observations differ in a few
    fields, so frame ``n`` keeps ``patch`` instead of ``observation`` (see
    :func:`webapp.matches.frames.patch_frames`; lists such as the creatures are patched item by
    item, matched by id). Built from the stored whole frames and kept in the cache under the patch
    version, so a change of the form never serves the old one and needs no migration of the
    stored frames.
    """
    key = f"frames:patch{PATCH_VERSION}:{match_id}:{replay_digest(raw)[:16]}"
    cached = cache.get(key)
    if cached is not None:
        return cast(bytes, cached)
    data = patch_frames(orjson.loads(gzip.decompress(frames_gz(match_id, raw))))
    packed = gzip.compress(orjson.dumps(data), mtime=0)
    cache.set(key, packed, timeout=PATCHED_CACHE_SECONDS)
    return packed
