"""The frames' patch form (``?form=patch``), which the viewer loads, rebuilds exactly the whole frames.

Real matches of both games (random bots, recorded through the services): applying each frame's
patch to the observation before it, as ``viewer.js`` does, gives every frame's observation of the
plain ``frames/`` answer, and the rest of each frame is the same. Also: the frames are stored when
the result is recorded, and the patch form is far smaller.
"""

from __future__ import annotations

import copy
import gzip
import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.webapp.test_browser import real_match
from webapp.matches.framestore import observation_patch
from webapp.matches.models import MatchFrames

pytestmark = pytest.mark.django_db(transaction=True)


def apply(obs: Any, ops: list[list[Any]]) -> Any:
    """The viewer's rebuild, in Python: ``[path, value]`` sets, ``[path]`` removes, ``[]`` is the whole value."""
    for op in ops:
        path = op[0]
        if not path:
            obs = copy.deepcopy(op[1])
            continue
        node = obs
        for key in path[:-1]:
            node = node[key]
        if len(op) == 1:
            del node[path[-1]]
        else:
            node[path[-1]] = copy.deepcopy(op[1])
    return obs


def test_observation_patch_sets_removes_and_replaces() -> None:
    before = {"a": 1, "b": [1, 2], "c": {"d": 1, "e": 2}, "gone": True}
    after = {"a": 2, "b": [1, 2, 3], "c": {"d": 1}, "new": None}
    ops = observation_patch(before, after)
    assert apply(copy.deepcopy(before), ops) == after
    assert [["a"], 2] in ops and [["c", "e"]] in ops and [["gone"]] in ops and [["b"], [1, 2, 3]] in ops
    assert observation_patch(before, before) == []
    assert observation_patch([1], {"x": 1}) == [[[], {"x": 1}]]


@pytest.mark.parametrize("game", ["superfantasybrawl", "scrumbrawl"])
def test_the_patch_form_rebuilds_every_frame(make_bot, author, other, game: str) -> None:
    match = real_match(game, 3, make_bot, author, other)
    assert MatchFrames.objects.filter(match=match).exists()  # stored when the result was recorded
    client = APIClient()
    full = client.get(f"/api/v1/matches/{match.pk}/frames/", HTTP_ACCEPT_ENCODING="gzip")
    patched = client.get(f"/api/v1/matches/{match.pk}/frames/", {"form": "patch"}, HTTP_ACCEPT_ENCODING="gzip")
    assert full.status_code == patched.status_code == 200
    whole, compact = json.loads(gzip.decompress(full.content)), json.loads(gzip.decompress(patched.content))
    assert compact["form"] == "patch" and len(compact["frames"]) == len(whole["frames"]) > 10
    obs = None
    for f_whole, f_patch in zip(whole["frames"], compact["frames"], strict=True):
        obs = f_patch["observation"] if "observation" in f_patch else apply(obs, f_patch["patch"])
        assert obs == f_whole["observation"], f_whole["index"]
        rest = {k: v for k, v in f_patch.items() if k not in ("observation", "patch")}
        assert rest == {k: v for k, v in f_whole.items() if k != "observation"}
    for key in ("total", "seats", "game", "outcome", "incidents", "board"):
        assert compact[key] == whole[key]
    size_whole, size_patch = len(json.dumps(whole)), len(gzip.decompress(patched.content))
    print(f"\n{game}: {len(whole['frames']) - 1} decisions, {size_whole} bytes of frames, {size_patch} as patches")
    assert size_patch < size_whole / 3
