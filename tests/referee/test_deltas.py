"""Observation deltas: a patched observation always equals the whole one.

The referee sends a seat's whole observation in ``MatchStart`` and then only
``DecisionRequest.observation_patch`` (docs/bot-protocol.md, "Observation deltas"). These tests
check, decision by decision over whole games of both real games, that applying the patches gives
exactly the JSON form of the full observation: first at the codec level (differ, encoder and the
SDK's ``apply_patch``), then through a real referee and real SDK clients, in patch mode, in
full-observation mode and across a reconnect.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import threading
import zlib
from pathlib import Path
from typing import Any, ClassVar

import pytest
from brawl.bot.v1 import bot_pb2

from referee.core import get_game
from referee.core.ids import BotId
from referee.core.replay import Recorder, Replay
from referee.protocol import codec
from referee.protocol.delta import ObservationDiffer, PatchError, apply_patch, encode, encode_into, json_text
from referee.protocol.timecontrol import TimeSettings
from referee.sdk import BotClient
from referee.sdk.host import Turn
from referee.server.auth import BotIdentity
from referee.server.match import SeatSpec
from referee.server.relay import RelayLink
from tests.referee.harness import referee_env, wait_connected
from tests.referee.test_node_bot import NODE_BOT, ensure_node_modules

REAL_GAMES = ["scrumbrawl", "superfantasybrawl"]
CALM = TimeSettings(decision_time=10, bank_time=60, max_overrun=5, max_strikes=3, reconnect_grace=20)
"""Long clocks: these tests check what is sent, not how fast (the machine may be loaded)."""


def full_form(game: str, data: Any) -> Any:
    """The JSON form a client gets by decoding the whole observation."""
    return codec.payload_data(codec.observation(game, data))


def playout(game: str, seed: int, seats: int, check: Any) -> int:
    """Plays a random game, calling ``check(match, seat)`` before every decision; returns the count."""
    g = get_game(game)
    rng = random.Random(seed)
    rec = Recorder(g, g.parse_config({}, seats), seed, [f"s{i}" for i in range(seats)], {})
    n = 0
    while (d := rec.match.to_move()) is not None:
        check(rec.match, d.seat)
        rec.apply(rng.choice(rec.match.legal_options()).id)
        n += 1
    return n


@pytest.mark.parametrize(
    ("game", "games"), [("scrumbrawl", [(1, 2)]), ("superfantasybrawl", [(1, 2), (2, 2), (3, 2), (4, 4), (5, 2)])]
)
def patched_playout(game: str, seed: int, seats: int) -> int:
    """Plays a random game checking each seat's patched observation before every decision."""
    differ = ObservationDiffer(game)
    raw: dict[int, Any] = {}
    held: dict[int, Any] = {}

    def check(match: Any, seat: int) -> None:
        new = match.observe(seat)
        if seat not in raw:
            held[seat] = full_form(game, new)  # as MatchStart would carry it
        else:
            diff = differ.diff(raw[seat], new)
            sent = bot_pb2.DecisionRequest()
            encode_into(sent.observation_patch, diff)  # as the referee builds it, in place
            assert list(sent.observation_patch) == encode(diff)
            # Over the wire: the client sees only the serialized ops.
            wire_ops = bot_pb2.DecisionRequest.FromString(sent.SerializeToString()).observation_patch
            before = held[seat]
            snapshot = repr(before)
            held[seat] = apply_patch(before, wire_ops)
            assert repr(before) == snapshot, "apply_patch changed the observation it was given"
        raw[seat] = new
        assert held[seat] == full_form(game, new)

    return playout(game, seed, seats, check)


@pytest.mark.parametrize(
    ("game", "games"), [("scrumbrawl", [(1, 2)]), ("superfantasybrawl", [(1, 2), (2, 2), (3, 2), (4, 4), (5, 2)])]
)
def test_patches_rebuild_every_observation_of_random_games(game: str, games: list[tuple[int, int]]) -> None:
    """Each seat's patched observation equals its full one before every decision (>1,000 per game)."""
    assert sum(patched_playout(game, seed, seats) for seed, seats in games) >= 1000


def test_patches_are_smaller_than_the_observations_they_replace() -> None:
    """The point of deltas: a ScrumBrawl patch is a fraction of the whole observation."""
    differ = ObservationDiffer("scrumbrawl")
    raw: dict[int, Any] = {}
    sizes = [0, 0]

    def check(match: Any, seat: int) -> None:
        new = match.observe(seat)
        if seat in raw:
            sizes[0] += sum(op.ByteSize() for op in encode(differ.diff(raw[seat], new)))
            sizes[1] += codec.observation("scrumbrawl", new).ByteSize()
        raw[seat] = new

    playout("scrumbrawl", 7, 2, check)
    assert sizes[0] * 2 < sizes[1], sizes


@pytest.mark.parametrize(
    "value",
    [0, -1, 7, 2**70, -(2**63), True, False, None, 1.5, "", 'é/~"x', [1, "a"], {"k": [None, True]}, [], {}],
)
def test_a_patch_value_is_the_json_encoders_text(value: Any) -> None:
    """The shortcut for ints, bools and null writes what the compact JSON encoder writes."""
    assert json_text(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert json.loads(json_text(value)) == value


def test_a_list_whose_elements_mostly_changed_is_patched_by_element_while_that_is_smaller() -> None:
    """A new turn clears a flag on every creature: one op per creature, not the whole list; when
    the elements change in more places than the list has elements, the whole list goes instead."""
    g = get_game("scrumbrawl")
    rec = Recorder(g, g.parse_config({}, 2), 3, ["a", "b"], {})
    rng = random.Random(1)
    while len(rec.match.observe(0)["creatures"]) < 4:
        rec.apply(rng.choice(rec.match.legal_options()).id)
    old = rec.match.observe(0)
    differ = ObservationDiffer("scrumbrawl")
    creatures = old["creatures"]

    flipped = {**old, "creatures": [{**c, "moved": not c["moved"]} for c in creatures]}
    ops = differ.diff(old, flipped)
    assert [(o, p) for o, p, _ in ops] == [("replace", f"/creatures/{i}/moved") for i in range(len(creatures))]

    moved = {**old, "creatures": [{**c, "row": c["row"] + 1, "col": c["col"] + 1} for c in creatures]}
    ops = differ.diff(old, moved)
    assert [(o, p) for o, p, _ in ops] == [("replace", "/creatures")]

    for new in (flipped, moved):
        patched = apply_patch(differ.json_form(old), encode(differ.diff(old, new)))
        assert patched == differ.json_form(new)


def op(kind: str, path: str, value: str = "") -> bot_pb2.PatchOp:
    return bot_pb2.PatchOp(op=kind, path=path, value=value)


def test_apply_patch_follows_json_patch_and_json_pointer() -> None:
    """RFC 6902 add/replace/remove on objects and arrays, RFC 6901 escapes, '-' appends."""
    doc = {"a": {"b/c": 1, "m~n": [1, 2, 3]}, "l": [{"x": 1}], "s": "t"}
    out = apply_patch(
        doc,
        [
            op("replace", "/a/b~1c", "2"),
            op("add", "/a/m~0n/1", "9"),
            op("remove", "/a/m~0n/3"),
            op("add", "/a/m~0n/-", "4"),
            op("add", "/l/0/y", '"z"'),
            op("remove", "/s"),
            op("add", "/new", "[1,{}]"),
        ],
    )
    assert out == {"a": {"b/c": 2, "m~n": [1, 9, 2, 4]}, "l": [{"x": 1, "y": "z"}], "new": [1, {}]}
    assert doc == {"a": {"b/c": 1, "m~n": [1, 2, 3]}, "l": [{"x": 1}], "s": "t"}
    assert apply_patch(doc, [op("replace", "", '{"w":1}')]) == {"w": 1}


@pytest.mark.parametrize(
    "bad",
    [
        op("move", "/a"),
        op("replace", "/nope", "1"),
        op("remove", "/l/5"),
        op("add", "/l/01", "1"),
        op("replace", "/s/x", "1"),
        op("replace", "a", "1"),
        op("add", "/a", "{not json"),
        op("remove", ""),
    ],
)
def test_apply_patch_refuses_what_does_not_apply(bad: bot_pb2.PatchOp) -> None:
    """Bad ops raise PatchError naming the path, and the observation is left as it was."""
    doc = {"a": 1, "l": [1], "s": "t"}
    with pytest.raises(PatchError):
        apply_patch(doc, [bad])
    assert doc == {"a": 1, "l": [1], "s": "t"}


class SpreadBot:
    """Plays an option picked from the decision id (varied, reproducible games); records its turns."""

    turns: ClassVar[list[Turn]] = []
    lock = threading.Lock()

    def choose_turn(self, turn: Turn) -> str:
        with self.lock:
            self.turns.append(turn)
        return turn.options[zlib.crc32(turn.decision_id.encode()) % len(turn.options)].id


def expected_observations(replay: Replay, with_options: bool = False) -> list[Any]:
    """Replays a match and returns the deciding seat's full observation (JSON form) per decision.

    With ``with_options``, each item is (observation, options decoded without any cache).
    """
    g = get_game(replay.game)
    rec = Recorder(g, replay.config, replay.seed, list(replay.seats), {})
    out: list[Any] = []
    for d in replay.decisions:
        seat = rec.match.to_move().seat  # type: ignore[union-attr]
        obs = full_form(replay.game, rec.match.observe(seat))
        if with_options:
            opts = [codec.option_from(codec.option(replay.game, o)) for o in rec.match.legal_options()]
            out.append((obs, opts))
        else:
            out.append(obs)
        rec.apply(d.option_id)
    return out


def own_numbers(replay: Replay) -> list[tuple[int, int]]:
    """Each decision's seat and that seat's own decision number (``DecisionRequest.decision_number``)."""
    counts = [0] * len(replay.seats)
    out = []
    for d in replay.decisions:
        out.append((int(d.seat), counts[d.seat]))
        counts[d.seat] += 1
    return out


def check_turns(runners: list[Any], turns: list[Turn]) -> int:
    by_decision = {(t.match_id, int(t.seat), t.decision_number): t for t in turns}
    checked = 0
    for r in runners:
        assert r.replay is not None, r.error
        owns = own_numbers(r.replay)
        for n, (want, options) in enumerate(expected_observations(r.replay, with_options=True)):
            turn = by_decision[(r.match_id, *owns[n])]
            assert turn.observation == want, (r.match_id, n)
            # The SDK decodes each option once per match: what the bot gets must not change.
            assert turn.options == options, (r.match_id, n)
            checked += 1
    return checked


@pytest.mark.parametrize("full", [False, True], ids=["patches", "full_observations"])
def test_bots_see_the_whole_observation_through_a_real_referee(full: bool) -> None:
    """Through a real referee and SDK clients, every turn's observation equals the full one.

    With patches (the default) the SDK rebuilds it; with ``Hello.full_observations`` the session
    applies the patches and sends the whole observation, which the test also checks is set.
    """
    SpreadBot.turns = []

    async def scenario() -> None:
        async with referee_env() as env:
            clients = [env.connect(SpreadBot, b, full_observations=full) for b in ("da", "db")]
            await wait_connected(env, "da", "db")
            runners = [
                env.start("superfantasybrawl", ["da", "db"], seed=11, time=CALM),
                env.start("superfantasybrawl", ["db", "da"], seed=12, time=CALM),
            ]
            if not full:
                runners.append(env.start("scrumbrawl", ["da", "db"], seed=13, time=CALM))
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), 600)
            assert check_turns(runners, SpreadBot.turns) >= (200 if full else 1000)
            assert all(c.errors == [] for c in clients)

    asyncio.run(scenario())


def test_a_reconnected_bot_starts_over_from_the_resent_observation() -> None:
    """After a broken stream the MatchStart carries the whole observation again; patches go on from it."""
    SpreadBot.turns = []

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(SpreadBot, "ra")
            env.connect(SpreadBot, "rb")
            await wait_connected(env, "ra", "rb")
            runner = env.start("superfantasybrawl", ["ra", "rb"], seed=21, time=CALM)
            while len(runner.recorder.replay.decisions) < 40:
                await asyncio.sleep(0.01)
            for session in list(env.referee.sessions.values()):
                if session.identity.bot_id == "ra":
                    session.close()  # the referee drops the stream; the SDK reconnects
            await asyncio.wait_for(runner.wait(), 600)
            assert any(i.kind == "reconnect" for i in runner.recorder.replay.incidents)
            assert check_turns([runner], SpreadBot.turns) > 40

    asyncio.run(scenario())


def without_nulls(data: Any) -> Any:
    """Drops null members: proto-loader writes an unset message field as null, the JSON form omits it."""
    if isinstance(data, dict):
        return {k: without_nulls(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [without_nulls(v) for v in data]
    return data


def test_the_node_example_bot_rebuilds_every_observation_from_patches(tmp_path: Path) -> None:
    """The outside-language example applies the patches itself; its observations equal the full ones.

    It asks for batches and plays both matches at once, so some of its requests come in a
    ResponseBatch (the two matches start together); those observations are checked the same way.
    """
    node = ensure_node_modules()
    dump = tmp_path / "observations.jsonl"

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(SpreadBot, "py", games=["superfantasybrawl"])
            proc = await asyncio.create_subprocess_exec(
                node,
                "bot.js",
                "--server",
                env.address,
                "--token",
                env.token("node"),
                "--games",
                "superfantasybrawl",
                "--matches",
                "2",
                "--max-matches",
                "2",
                "--observations",
                str(dump),
                cwd=NODE_BOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            runners = [
                env.start("superfantasybrawl", seats, seed=30 + n, time=CALM, join_timeout=20)
                for n, seats in enumerate([["node", "py"], ["py", "node"]])
            ]
            status = await asyncio.wait_for(proc.wait(), 300)
            err = (await proc.stderr.read()).decode()  # type: ignore[union-attr]
            assert status == 0, err
            for r in runners:
                await asyncio.wait_for(r.wait(), 30)
            seen = [json.loads(line) for line in dump.read_text().splitlines()]
            checked = 0
            for r in runners:
                assert r.replay is not None, r.error
                want = dict(zip(own_numbers(r.replay), expected_observations(r.replay), strict=True))
                node_seat = next(st.seat for st in r.seats if st.spec.bot_id == "node")
                for line in seen:
                    if line["match_id"] == r.match_id:
                        assert without_nulls(line["observation"]) == want[(node_seat, line["decision_number"])]
                        checked += 1
            assert checked > 100
            assert any(line["batched"] for line in seen), "no request of two concurrent matches came in a batch"

    asyncio.run(scenario())


def test_a_relayed_seat_gets_patches_or_whole_observations_as_its_hello_asked() -> None:
    """Across the relay: the host's session applies the origin's patches for a full-observation bot."""
    from tests.referee.test_relay import two_referees

    SpreadBot.turns = []

    async def scenario() -> None:
        async with two_referees() as (origin, host, store):
            tx = store.issue(BotIdentity(BotId("rx"), "RX"))
            ty = store.issue(BotIdentity(BotId("ry"), "RY"))
            cx = BotClient(SpreadBot, f"127.0.0.1:{origin.port}", tx, games=["superfantasybrawl"])
            cy = BotClient(SpreadBot, f"127.0.0.1:{host.port}", ty, games=["superfantasybrawl"], full_observations=True)
            full: dict[str, list[bool]] = {"rx": [], "ry": []}
            for name, client in (("rx", cx), ("ry", cy)):
                # Spy on what arrives: whole observations for ry only, patches for rx.
                def spy(msg: Any, handle: Any = client.host.handle, seen: list[bool] = full[name]) -> None:
                    if msg.WhichOneof("message") == "decision_request":
                        seen.append(msg.decision_request.HasField("observation"))
                    handle(msg)

                client.host.handle = spy  # type: ignore[method-assign]
            tasks = [asyncio.create_task(cx.run(1)), asyncio.create_task(cy.run(1))]
            seats = [SeatSpec(bot_id=BotId("rx")), SeatSpec(bot_id=BotId("ry"))]
            runner = origin.referee.start_match(
                game="superfantasybrawl", seats=seats, seed=41, time_control=CALM.to_proto()
            )
            await asyncio.wait_for(runner.wait(), 300)
            assert any(isinstance(st.link, RelayLink) for st in runner.seats)
            assert check_turns([runner], SpreadBot.turns) > 50
            assert full["ry"] and all(full["ry"]) and full["rx"] and not any(full["rx"])
            await asyncio.wait_for(asyncio.gather(*tasks), 30)

    asyncio.run(scenario())
