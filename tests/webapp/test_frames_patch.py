"""The frames' patch form (``?form=patch``), which the viewer loads, rebuilds exactly the whole frames.

Real matches of both games (random bots, recorded through the services): applying each frame's
patch to the observation before it, as ``viewer.js`` does, gives every frame's observation of the
plain ``frames/`` answer, and the rest of each frame is the same. Also: the frames are stored when
the result is recorded, and the patch form is far smaller.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json

import pytest
from rest_framework.test import APIClient

from tests.webapp.test_browser import real_match
from webapp.matches.frames import FRAMES_VERSION, PATCH_VERSION, apply_patch, observation_patch
from webapp.matches.framestore import replay_digest
from webapp.matches.models import MatchFrames
from webapp.matches.views import public_replay_bytes

pytestmark = pytest.mark.django_db(transaction=True)


def test_observation_patch_sets_removes_and_replaces() -> None:
    before = {"a": 1, "b": [1, 2], "c": {"d": 1, "e": 2}, "gone": True}
    after = {"a": 2, "b": [1, 2, 3], "c": {"d": 1}, "new": None}
    ops = observation_patch(before, after)
    assert apply_patch(copy.deepcopy(before), ops) == after
    assert [["a"], 2] in ops and [["c", "e"]] in ops and [["gone"]] in ops and [["b"], [1, 2, 3]] in ops
    assert observation_patch(before, before) == []
    assert observation_patch([1], {"x": 1}) == [[[], {"x": 1}]]


def test_a_list_is_patched_by_item_matched_by_id() -> None:
    """A creature entering or leaving costs that creature, not the whole list (finding: 58% of the bytes)."""
    big = {"hp": 5, "name": "Knight of a long name", "row": 1, "col": 2, "tags": ["a", "b"]}
    before = {"creatures": [{"id": f"k{i}", **big} for i in range(12)], "discard": ["x", "y", "z"]}
    after = copy.deepcopy(before)
    del after["creatures"][3]  # one leaves
    after["creatures"][5]["hp"] = 2  # one is hurt
    after["creatures"].insert(8, {"id": "k99", **big})  # one enters
    after["discard"] = ["w", "x", "y", "z"]  # a card goes on top of a pile
    ops = observation_patch(before, after)
    assert apply_patch(copy.deepcopy(before), ops) == after
    (creatures,) = [op for op in ops if op[0] == ["creatures"]]
    assert creatures[1] == "L" and len(json.dumps(creatures)) < len(json.dumps(after["creatures"])) / 3
    assert [["discard"], "L", [["w"], [0, 3]]] in ops  # the old items as one run
    # Repeated ids or values cannot be matched: the list is set whole, still exactly.
    twice = {"l": [{"id": 1}, {"id": 1}]}
    assert observation_patch({"l": [{"id": 1}]}, twice) == [[["l"], twice["l"]]]
    assert apply_patch({"l": [1, 1]}, observation_patch({"l": [1, 1]}, {"l": [1]})) == {"l": [1]}
    # A list at the top level and lists inside a patched item.
    top = observation_patch([{"id": 1, "l": [1, 2]}, {"id": 2}], [{"id": 2}, {"id": 1, "l": [2]}, {"id": 3}])
    assert apply_patch([{"id": 1, "l": [1, 2]}, {"id": 2}], top) == [{"id": 2}, {"id": 1, "l": [2]}, {"id": 3}]


@pytest.mark.parametrize("game", ["superfantasybrawl", "scrumbrawl"])
def test_the_patch_form_rebuilds_every_frame(make_bot, author, other, game: str) -> None:
    match = real_match(game, 3, make_bot, author, other)
    assert MatchFrames.objects.filter(match=match).exists()  # stored when the result was recorded
    client = APIClient()
    full = client.get(f"/api/v1/matches/{match.pk}/frames/", HTTP_ACCEPT_ENCODING="gzip")
    patched = client.get(f"/api/v1/matches/{match.pk}/frames/", {"form": "patch"}, HTTP_ACCEPT_ENCODING="gzip")
    assert full.status_code == patched.status_code == 200
    whole, compact = json.loads(gzip.decompress(full.content)), json.loads(gzip.decompress(patched.content))
    assert compact["form"] == "patch" and compact["patch_version"] == PATCH_VERSION
    assert len(compact["frames"]) == len(whole["frames"]) > 10
    obs = view = None
    for f_whole, f_patch in zip(whole["frames"], compact["frames"], strict=True):
        obs = copy.deepcopy(f_patch["observation"]) if "observation" in f_patch else apply_patch(obs, f_patch["patch"])
        assert obs == f_whole["observation"], f_whole["index"]
        view = copy.deepcopy(f_patch["view"]) if "view" in f_patch else apply_patch(view, f_patch["view_patch"])
        assert view == f_whole["view"], f_whole["index"]
        rest = {k: v for k, v in f_patch.items() if k not in ("observation", "patch", "view", "view_patch")}
        assert rest == {k: v for k, v in f_whole.items() if k not in ("observation", "view")}
    # The stored bytes are served gzipped with a strong ETag per encoding; a revalidation is a 304.
    etag = patched["ETag"]
    assert etag.startswith('"') and patched["Cache-Control"] == "private, no-cache"
    again = client.get(
        f"/api/v1/matches/{match.pk}/frames/", {"form": "patch"}, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=etag
    )
    assert again.status_code == 304 and not again.content
    plain = client.get(f"/api/v1/matches/{match.pk}/frames/", {"form": "patch"}, HTTP_IF_NONE_MATCH=etag)
    assert plain.status_code == 200 and plain["ETag"] != etag and json.loads(plain.content) == compact
    for key in ("total", "seats", "game", "outcome", "incidents", "board", "cells", "frames_version"):
        assert compact[key] == whole[key]
    size_whole, size_patch = len(json.dumps(whole)), len(gzip.decompress(patched.content))
    print(
        f"\n{game}: {len(whole['frames']) - 1} decisions, {size_whole} bytes of frames, {size_patch} as patches"
        f" ({len(patched.content)} gzipped)"
    )
    assert size_patch < size_whole / 4


def test_frames_stored_in_an_older_form_are_recomputed(make_bot, author, other) -> None:
    """A row stored before the frames carried the board view (form 1) is never served: it is recomputed."""
    match = real_match("superfantasybrawl", 4, make_bot, author, other)
    raw = public_replay_bytes(match)
    old = {"total": 1, "frames": [{"index": 0, "observation": {}, "events": [], "decision": None, "to_move": None}]}
    MatchFrames.objects.filter(match=match).update(
        replay_digest=hashlib.sha256(raw).hexdigest(), frames_gz=gzip.compress(json.dumps(old).encode())
    )
    body = APIClient().get(f"/api/v1/matches/{match.pk}/frames/").json()
    assert body["frames_version"] == FRAMES_VERSION and len(body["frames"]) > 10
    assert all("view" in f for f in body["frames"]) and body["cells"]
    assert all("text" in e for f in body["frames"] for e in f["events"])
    stored = MatchFrames.objects.get(match=match)
    assert stored.replay_digest == replay_digest(raw) != hashlib.sha256(raw).hexdigest()
