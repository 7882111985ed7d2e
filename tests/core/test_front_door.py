"""The front door assembles the referee: ``brawl referee`` gets its ladder mode's stores as an argument."""

from __future__ import annotations

import argparse

import pytest

from referee.server import cli as referee_cli
from service import cli, refhost


def _referee_args(parser: argparse.ArgumentParser, *argv: str) -> argparse.Namespace:
    return parser.parse_args(["referee", "--listen", "127.0.0.1:0", *argv])


def test_the_brawl_command_line_hands_the_referee_the_ladder_stores() -> None:
    args = _referee_args(cli.build_parser())
    assert args.func.func is referee_cli.cmd_referee
    assert args.func.keywords == {"ladder": refhost.ladder_stores}


def test_a_referee_command_line_without_ladder_wiring_refuses_the_ladder_mode(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser(prog="brawl")
    referee_cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = _referee_args(parser)
    assert args.func(args) == 2
    assert "no ladder mode; give --tokens and/or --replays" in capsys.readouterr().err
