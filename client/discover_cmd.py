"""``onecard discover``: list the hosts advertised on the LAN (:mod:`net.discover` finds them).

How it works: the click command parses its options and runs :func:`run_discover` with
``trio.run``; that listens for ``--timeout`` seconds and prints one line per host (its name,
every address it advertised, the fingerprint hint), or with ``--json`` one object per host.
Names come from the network, so they are shown escaped.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict

import click
import trio

from net.discover import browse
from protocol.text import safe_json, safe_text

__all__ = ["discover_command", "run_discover"]


async def run_discover(*, timeout: float, json_mode: bool) -> int:
    """Print the advertised hosts; return how many were found."""
    hosts = await browse(timeout)
    if json_mode:
        for ad in hosts:
            row = {**asdict(ad), "addresses": list(ad.candidates), "targets": ad.targets}
            click.echo(safe_json(json.dumps({**row, "target": ad.target}, ensure_ascii=False)))
        return len(hosts)
    if not hosts:
        click.echo(
            f"No onecard hosts heard within {timeout:g} s. Multicast may be blocked on this "
            "network: join by address instead (onecard join HOST[:PORT])."
        )
        return 0
    width = max(len(safe_text(ad.name)) for ad in hosts)
    for ad in hosts:
        name, target = safe_text(ad.name), safe_text(ad.target)
        click.echo(f"{name:<{width}}  {target:<21}  fingerprint {ad.fingerprint}")
        for other in ad.targets[1:]:
            click.echo(f"{'':<{width}}  {safe_text(other):<21}  (also)")
    return len(hosts)


@click.command("discover", short_help="List onecard hosts advertised on the LAN.")
@click.option(
    "--timeout",
    type=click.FloatRange(0.2, 60),
    default=2.0,
    show_default=True,
    help="Seconds to listen for announcements.",
)
@click.option("--json", "json_mode", is_flag=True, help="One JSON object per host.")
def discover_command(*, timeout: float, json_mode: bool) -> None:
    """List hosts advertising _onecard._tcp on the LAN (mDNS/zeroconf)."""
    try:
        trio.run(functools.partial(run_discover, timeout=timeout, json_mode=json_mode))
    except OSError as exc:
        raise click.ClickException(f"cannot listen for hosts: {exc.strerror or exc}") from None
