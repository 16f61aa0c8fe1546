"""Our client (``onecard join --json``, a subprocess) against a host run with ``--cheat KIND``:
it reports each kind live, as a failed deal check worded by the reference verifier
(PROTOCOL.md 7.15). A reshuffle needs a long game: One Card with bankruptcy off at four seats
reshuffles in most games, and that test plays up to five games until one does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from host.table.cheats import CheatKind
from protocol.exit_codes import ExitCode
from protocol.hand_records import verify_record


async def _first_failure(client: Any) -> dict[str, Any] | None:
    """Play until the client reports a failed deal check (returned) or the game ends (None)."""
    failure: dict[str, Any] | None = None

    async def watch(line: dict[str, Any]) -> None:
        nonlocal failure
        if line["type"] == "fairness" and line["status"] == "failed" and failure is None:
            failure = line
            client.process.kill()

    await client.play_to_end(watch)
    return failure


@pytest.mark.parametrize("kind", list(CheatKind), ids=lambda k: k.value)
async def test_our_client_catches_every_kind_of_cheating_live(
    kind: CheatKind,
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
    cheat_caught: dict[CheatKind, str],
    reshuffle_tries: int,
) -> None:
    info = await start_host(cheat=kind, insecure=True)
    long_game = ["--seats", "4", "--bots", "3", "--option", "bankrupt_at=0"]
    args = long_game if kind is CheatKind.WRONG_RESHUFFLE else ["--seats", "2", "--bots", "1"]
    failure = None
    for _ in range(reshuffle_tries if kind is CheatKind.WRONG_RESHUFFLE else 1):
        client = await json_client(
            "join",
            f"127.0.0.1:{info.port}",
            "--insecure",
            "--create",
            "one-card",
            *args,
            "--name",
            "Ann",
            "--new",
        )
        failure = await _first_failure(client)
        if failure is not None:
            break
    assert failure is not None, f"{kind.value}: no failed check reported"
    assert cheat_caught[kind] in failure["message"], failure


@pytest.mark.parametrize("game", ["one", "black-jack"])
@pytest.mark.parametrize("kind", [CheatKind.SHORT_DECK, CheatKind.CHANGED_OPTIONS])
async def test_a_deck_or_ruleset_not_the_tables_is_caught_in_every_game(
    game: str,
    kind: CheatKind,
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
) -> None:
    """At the first HAND_COMMIT, whatever the game (One Card is the test above)."""
    info = await start_host(cheat=kind, insecure=True)
    table = ["--create", game, "--seats", "2", "--bots", "1"]
    client = await json_client(
        "join", f"127.0.0.1:{info.port}", "--insecure", *table, "--name", "Ann", "--new"
    )
    failure = await _first_failure(client)
    assert failure is not None and failure["hand_no"] == 1, failure
    if kind is CheatKind.SHORT_DECK:
        short = "9S 9H 9D 9C" if game == "one" else "2S 3S 2H 3H"
        assert f"without {short}" in failure["message"], failure
    else:
        assert f"HAND_COMMIT ruleset '{game}?" in failure["message"], failure
        assert "expected" in failure["message"], failure


async def test_after_a_failed_check_the_client_says_so_with_the_proof_and_leaves(
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
) -> None:
    """No further deal rounds at a host that failed one: a ``distrust`` line, then the end, and
    exit status 1 (README: a deal did not verify)."""
    info = await start_host(cheat=CheatKind.SHORT_DECK, insecure=True)
    table = ["--create", "one-card", "--seats", "2", "--bots", "1"]
    client = await json_client(
        "join", f"127.0.0.1:{info.port}", "--insecure", *table, "--name", "Ann", "--new"
    )
    end = await client.play_to_end()
    assert end is not None and end["reason"] == "left the table: a deal check failed", end
    types = client.types()
    failed = types.index("fairness")
    assert types[failed + 1 : failed + 3] == ["distrust", "end"], types
    distrust = client.lines[failed + 1]
    assert distrust["hand_no"] == 1 and "deals 46 cards" in distrust["failure"]
    proof = Path(distrust["proof"])
    assert proof.is_file() and str(proof) in distrust["message"]
    assert verify_record(json.loads(proof.read_text("utf-8"))).failure == "DeckError"
    assert await client.process.wait() == ExitCode.FAILED  # a deal did not verify
