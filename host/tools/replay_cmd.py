"""``onecard replay FILE [--json]``: play a scenario file and print what happens.

How it works: a thin click shell over :mod:`host.tools.scenario`. :func:`replay_lines` runs the file
and turns every chance answer, action, expected error, event and the outcome into text lines
(or JSON objects); :func:`replay_command` prints them as they come. The first failure (a bad
file, an unexpected error, a failed expectation) becomes a :class:`ReplayError`, a
``click.ClickException``, so the user sees one line and exit status 1, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from host.games.base import Event
from host.tools.scenario import ScenarioError, ScenarioFailure, ScenarioRunner, load_scenario

__all__ = ["ReplayError", "format_event", "replay_command", "replay_lines"]


class ReplayError(click.ClickException):
    """A scenario could not be loaded or failed; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


def _value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + " ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + " ".join(f"{k}={_value(v)}" for k, v in value.items()) + "}"
    return "-" if value is None else str(value)


def format_event(event: Event) -> str:
    """One readable line: ``draw seat=1 count=2 reason=attack positions=[[0 14] [0 15]]``."""
    who = "" if event.to is None else f" (to seat {event.to})"
    fields = " ".join(f"{k}={_value(v)}" for k, v in event.data.items())
    return f"{event.kind}{who} {fields}".rstrip()


def replay_lines(path: str | Path, *, as_json: bool = False) -> Iterator[str]:  # noqa: C901, PLR0912
    """Run a scenario file and yield its output lines.

    Raises:
        ReplayError: the file is invalid or the scenario failed (the lines before it were
            already yielded).
    """
    try:
        scenario = load_scenario(path)
        runner = ScenarioRunner(scenario)
        for result in runner.run():
            if as_json:
                if result.chance is not None:
                    yield json.dumps({"type": "chance", "kind": result.chance.value})
                elif result.wire is not None:
                    yield json.dumps(
                        {
                            "type": "action",
                            "step": result.index,
                            "seat": result.seat,
                            "action": result.wire,
                        }
                    )
                if result.error is not None:
                    yield json.dumps({"type": "error", "step": result.index, "error": result.error})
                for event in result.events:
                    yield json.dumps({"type": "event", "step": result.index, **event.to_wire()})
                continue
            if result.chance is not None:
                yield f"-- chance: {result.chance.value}"
            elif result.action is not None:
                yield f"-- step {result.index}: seat {result.seat} {result.action}"
            elif result.wire is not None:
                yield f"-- step {result.index}: seat {result.seat} {json.dumps(result.wire)}"
            elif result.index is not None:
                yield f"-- step {result.index}: (check)"
            if result.error is not None:
                yield f"   rejected as expected: {result.error}"
            for event in result.events:
                yield "   " + format_event(event)
        outcome = runner.game.outcome()
    except (ScenarioError, ScenarioFailure) as exc:
        raise ReplayError(str(exc)) from None
    except Exception as exc:  # an engine bug: still one line, never a traceback
        raise ReplayError(f"{path}: internal error: {type(exc).__name__}: {exc}") from None
    wire = None if outcome is None else outcome.to_wire()
    if as_json:
        yield json.dumps({"type": "outcome", "outcome": wire})
    elif wire is None:
        yield "outcome: the game is not over"
    else:
        yield "outcome: " + " ".join(f"{k}={_value(v)}" for k, v in wire.items())


@click.command("replay", short_help="Play a scenario file and print every event.")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    default=False,
    show_default=True,
    help="Print one JSON object per line instead of text.",
)
def replay_command(file: Path, as_json: bool) -> None:
    """Play scenario FILE through its game engine, printing every event and the outcome.

    Exit status: 0 when the scenario ran to its end; 1, with a one-line message, when the
    file cannot be read (missing, a directory, over 16 MiB, not JSON) or is not a valid
    scenario, or at the first illegal action or failed expectation.
    """
    for line in replay_lines(file, as_json=as_json):
        click.echo(line)
