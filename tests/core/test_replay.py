"""The replay format: compact decisions, versioning, files, forfeits and the CLI verifier."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core import Seat, register
from referee.core.conformance import random_playout
from referee.core.contract import EVERYONE, Termination, forfeit_outcome
from referee.core.errors import EngineError, MatchOverError
from referee.core.replay import DecisionRecord, Recorder, Replay, ReplayError, verify
from tests.conformance.tinygame import TinyGame

GAME = TinyGame()
register(GAME)


def test_decision_record_compact_form_round_trips() -> None:
    plain = DecisionRecord(Seat(1), "draw")
    assert plain.to_json() == [1, "draw"]
    full = DecisionRecord(Seat(0), "pass", source="default", note="slow", think_ms=1200)
    assert full.to_json() == [0, "pass", {"src": "default", "note": "slow", "ms": 1200}]
    assert DecisionRecord.from_json(full.to_json()) == full
    with pytest.raises(ReplayError, match="malformed decision"):
        DecisionRecord.from_json(["0", "pass"])


def test_unknown_format_or_version_is_refused_with_the_reason() -> None:
    replay = random_playout(GAME, 2, seed=3).finish()
    data = replay.to_json()
    data["version"] = 99
    with pytest.raises(ReplayError, match="version 99 is not supported"):
        Replay.from_json(data)
    with pytest.raises(ReplayError, match="not a brawl replay"):
        Replay.from_json({"game": "tinygame"})
    with pytest.raises(ReplayError, match="not valid JSON"):
        Replay.loads("{nope")


def test_gzip_file_round_trip(tmp_path: Path) -> None:
    replay = random_playout(GAME, 3, seed=11).finish()
    path = tmp_path / "m.json.gz"
    replay.save(path)
    assert gzip.decompress(path.read_bytes()).decode() == replay.dumps()
    assert Replay.load(path).dumps() == replay.dumps()


def test_forfeit_is_recorded_as_incident_and_verifies() -> None:
    rec = Recorder(GAME, GAME.default_config(2), 5, ["a", "b"])
    rec.apply(rec.match.legal_options()[0].id, note="opening")
    outcome = rec.forfeit([Seat(1)], "three strikes")
    assert outcome == forfeit_outcome(2, [Seat(1)], "three strikes")
    assert outcome.ranks == (1, 2) and outcome.termination is Termination.FORFEIT
    replay = rec.finish()
    assert [i.kind for i in replay.incidents] == ["forfeit"]
    verify(Replay.loads(replay.dumps()))


def test_a_cut_log_without_forfeit_does_not_verify() -> None:
    replay = random_playout(GAME, 2, seed=4).finish()
    data = json.loads(replay.dumps())
    data["decisions"] = data["decisions"][:-1]
    with pytest.raises(ReplayError):
        verify(Replay.from_json(data))


def test_hidden_events_are_checked_through_the_digest() -> None:
    replay = random_playout(GAME, 2, seed=8).finish()
    assert all("to" not in e for e in replay.events), "the stored event log must be public only"
    tampered = Replay.from_json({**replay.to_json(), "events_digest": "0" * 64})
    with pytest.raises(ReplayError, match="digest"):
        verify(tampered)


def test_brawl_replay_verify_command(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    random_playout(GAME, 2, seed=21).finish().save(good)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    # The CLI resolves games through the registry, so the test game registers itself in a shim.
    shim = (
        "import sys; from referee.core import register; from tests.conformance.tinygame import TinyGame;"
        "register(TinyGame()); from service.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    ok = subprocess.run(
        [sys.executable, "-c", shim, "replay", "verify", str(good)], capture_output=True, text=True, check=False
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("ok ")
    both = subprocess.run(
        [sys.executable, "-c", shim, "replay", "verify", str(good), str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert both.returncode == 1
    assert "FAIL" in both.stdout and "1 verified, 1 failed" in both.stdout


def test_cancelled_match_counts_for_nobody_and_verifies() -> None:
    rec = Recorder(GAME, GAME.default_config(3), 6, ["a", "b", "c"])
    rec.apply(rec.match.legal_options()[0].id)
    outcome = rec.cancel("referee shut down")
    assert outcome.ranks == (1, 1, 1) and outcome.termination is Termination.CANCELLED
    verify(Replay.loads(rec.finish().dumps()))


def test_a_released_recorder_keeps_the_record_and_the_public_view_only() -> None:
    """Recorder.release on a finished match: the outcome, the number of decisions, the incidents
    and the final public observation stay; the engine's state, the event log and the decisions go;
    the replay finish() returned is left whole; releasing a running match is refused."""
    rec = Recorder(GAME, GAME.parse_config({}, 2), 5, ["a", "b"])
    with pytest.raises(ReplayError):
        rec.release()
    while rec.match.to_move() is not None:
        rec.apply(rec.match.legal_options()[0].id)
    public, outcome = rec.match.observe(None), rec.outcome()
    whole = rec.finish()
    events, decisions = list(whole.events), len(whole.decisions)
    rec.release()
    assert rec.outcome() == outcome and rec.match.observe(None) == public
    assert rec.match.to_move() is None and rec.match.events(0) == [] and rec.replay.events == []
    assert rec.decision_count == decisions and rec.replay.decisions == [] and rec.replay.outcome == outcome
    assert whole.events == events and events
    with pytest.raises(MatchOverError):
        rec.match.apply("anything")
    with pytest.raises(EngineError):
        rec.match.observe(Seat(0))
    verify(whole)


def test_finishing_in_steps_yields_every_step_events_and_gives_the_replay_finish_gives() -> None:
    """Recorder.finishing: the caller gets control back after every ``step`` events digested (the
    referee yields to its loop there), and the replay is the one finish() makes, digest included;
    the digest is still the SHA-256 of one canonical JSON line per event."""
    played = []
    for _ in range(2):
        rec = Recorder(GAME, GAME.parse_config({}, 2), 9, ["a", "b"])
        while rec.match.to_move() is not None:
            rec.apply(rec.match.legal_options()[0].id)
        played.append(rec)
    n = len(played[0].match.events(0, EVERYONE))
    assert n >= 6, "the test game's match logs enough events to take several steps"
    steps = list(played[0].finishing(step=2))
    assert steps == list(range(2, n + 1, 2))
    stepped, whole = played[0].replay, played[1].finish()
    assert stepped.to_json() == whole.to_json()
    events = played[1].match.events(0, EVERYONE)
    lines = [json.dumps(e.to_json(), sort_keys=True, separators=(",", ":")) for e in events]
    assert whole.events_digest == hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()
    verify(stepped)


def test_finishing_a_running_match_is_refused() -> None:
    rec = Recorder(GAME, GAME.parse_config({}, 2), 9, ["a", "b"])
    with pytest.raises(ReplayError, match="still running"):
        next(rec.finishing())
