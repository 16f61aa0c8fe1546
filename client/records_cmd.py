"""``onecard records ADDRESS TABLE [HAND...]``: fetch a table's hand records from a host.

How it works: :func:`records_command` parses the arguments and runs :func:`run_records`, which
connects like ``onecard join`` (TLS pinned in known_hosts, ``--insecure`` for plain TCP), asks
``list_records`` when no HAND is given, then fetches, checks and saves each record with
:func:`client.record_fetch.fetch_and_save` (into the proofs directory under the state directory
unless ``--out`` says otherwise) and prints one line per hand. When ``onecard join`` has pinned
the host's deal-signing key, every record must be signed by it. Exit status as ``onecard
verify``: 0 every record valid (a correctly voided hand counts), 1 some record failed a check or
was not a record at all, 69 (``ExitCode.UNAVAILABLE``) none failed but some hand could not be
fetched or saved (a table the host does not know, or no connection at all, is 69 as well:
nothing could be fetched).
Each line is made safe to show (:func:`protocol.text.safe_text`): it may quote the host's
refusal or a field of its record; ``--json`` escapes everything outside ASCII anyway.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click

import protocol.table_messages as tm
from client.commands import run_sync
from client.options import connection_options, table_id
from client.record_fetch import RecordResult, fetch_and_save
from client.tokens import default_state_dir
from net.address import Address, split_address
from net.session import expect_reply
from net.trust import KnownHosts, host_session, open_stream
from protocol.exit_codes import ExitCode
from protocol.text import safe_text

__all__ = ["records_command", "records_listed", "run_records"]
#: a table id as the protocol allows it (spec/PROTOCOL.md 3.1)


async def run_records(
    *,
    address: str,
    table: str,
    hands: tuple[int, ...] = (),
    out: Path | None = None,
    insecure: bool = False,
    known_hosts: Path | None = None,
    list_only: bool = False,
    as_json: bool = False,
) -> list[RecordResult]:
    """Fetch (or with ``list_only`` just list) a table's hand records; print one line each.

    Raises:
        click.ClickException: no connection, the host refused (no such table), ...
    """
    host, port = split_address(address)
    pins = KnownHosts(known_hosts)
    connected = await open_stream(host, port, insecure=insecure, known_hosts=pins, pin=False)
    directory = out if out is not None else default_state_dir() / "proofs"
    results: list[RecordResult] = []
    async with host_session(connected, insecure=insecure) as session:  # pins after welcome
        host_pk = pins.deal_key(connected.key)  # after the pin: a fresh one drops the old key
        if connected.first_use:
            click.echo(
                f"{connected.key}: fingerprint {connected.fingerprint} pinned on first use",
                err=True,
            )
        wanted = list(hands)
        if list_only or not wanted:
            reply = expect_reply(await session.request(tm.ListRecords(table=table)), tm.Records)
            if list_only:
                if as_json:
                    click.echo(json.dumps({"table": table, "hands": list(reply.hands)}))
                else:
                    click.echo(f"table {table}: {records_listed(reply.hands)}")
                await session.bye("done")
                return []
            wanted = list(reply.hands)
            if not wanted:
                click.echo(f"table {table} has no hand records yet", err=True)
        for hand_no in wanted:
            result = await fetch_and_save(session, table, hand_no, directory, host_pk=host_pk)
            results.append(result)
            if not as_json:
                click.echo(safe_text(result.line()))  # the host's words, the record's fields
        await session.bye("done")
    if as_json:
        click.echo(json.dumps([r.to_json() for r in results], indent=1))
    return results


class NotFetched(click.ClickException):
    """Nothing could be fetched: exit status 69, as for a hand that could not be fetched."""

    exit_code = ExitCode.UNAVAILABLE


@click.command("records", short_help="Fetch a table's hand records from a host and check them.")
@click.argument("address", type=Address())
@click.argument("table", callback=table_id)
@click.argument("hands", metavar="[HAND]...", nargs=-1, type=click.IntRange(min=1))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory to save the records in (default: the proofs directory under the state dir, "
    "next to the deal proofs).",
)
@click.option("--list", "list_only", is_flag=True, help="Only list the hands with a record.")
@connection_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of one line per hand.")
def records_command(
    *,
    address: str,
    table: str,
    hands: tuple[int, ...],
    out: Path | None,
    list_only: bool,
    insecure: bool,
    known_hosts: Path | None,
    as_json: bool,
) -> None:
    """Fetch the hand records of TABLE from the host at ADDRESS (host[:port]) and check them.

    Without HAND, every hand the host keeps a record of is fetched. Each record is checked as
    `onecard verify` does (and against the host's deal key when it is pinned), saved as
    TABLE-handN-record.json and reported in one line. Exits 0 if all are valid, 1 if any failed
    a check, 69 if none failed but some could not be fetched (no such table or hand, no
    connection, the host refused).
    """
    try:
        results: list[RecordResult] = (
            run_sync(
                run_records,
                address=address,
                table=table,
                hands=hands,
                out=out,
                insecure=insecure,
                known_hosts=known_hosts,
                list_only=list_only,
                as_json=as_json,
            )
            or []
        )
    except click.ClickException as exc:  # no such table, no connection: nothing fetched
        raise NotFetched(safe_text(exc.message)) from None
    ctx = click.get_current_context()
    if any(r.status in ("invalid", "unreadable") for r in results):
        ctx.exit(ExitCode.FAILED)
    if any(r.status == "unavailable" for r in results):
        ctx.exit(ExitCode.UNAVAILABLE)


def records_listed(hands: Sequence[int]) -> str:
    """``records --list`` in words: how many hand records, and which hands (``1 hand record
    (hand 1)``, ``3 hand records (hands 1-3)``, ``2 hand records (hands 2, 5)``)."""
    if not hands:
        return "no hand records yet"
    n = len(hands)
    if n == 1:
        return f"1 hand record (hand {hands[0]})"
    ordered = sorted(hands)
    run = ordered == list(range(ordered[0], ordered[-1] + 1))
    which = f"{ordered[0]}-{ordered[-1]}" if run else ", ".join(map(str, ordered))
    return f"{n} hand records (hands {which})"
