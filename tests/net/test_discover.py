"""LAN discovery: the TXT record round-trips without any network, and an mDNS advertisement on
127.0.0.1 is found by a browser (skipped when multicast does not work here)."""

from __future__ import annotations

import pytest
import trio

from net.discover import HostAd, advertise_host, browse, decode_txt, encode_txt, lan_addresses

FP = "SHA256:" + ":".join(["5d", "91", "cd", "5c", "f1", "c8", "0a", "b6", "61"] + ["00"] * 23)


def test_txt_round_trip() -> None:
    txt = encode_txt(name="Ann's table", fingerprint=FP, port=7531)
    assert next(iter(txt)) == "txtvers"
    assert txt == {
        "txtvers": "1",
        "proto": "1",
        "name": "Ann's table",
        "fp": "5d91cd5cf1c80ab6",
        "port": "7531",
    }
    wire = {k.encode(): v.encode() for k, v in txt.items()}
    assert decode_txt(wire) == txt
    assert sum(len(k) + len(v) + 2 for k, v in wire.items()) < 200  # RFC 6763 6.2


def test_txt_decoding_is_forgiving_but_versioned() -> None:
    assert decode_txt({b"TXTVERS": b"1", b"name": b"\xff\xfe", b"x": None}) == {
        "txtvers": "1",
        "x": "",
    }
    assert decode_txt({b"txtvers": b"2", b"name": b"Future"}) is None
    assert decode_txt({}) is None
    assert encode_txt(name="x" * 50, fingerprint=FP, port=1)["name"] == "x" * 32


def test_join_target() -> None:
    assert HostAd("Den", "10.0.0.2", 7531, "", "1").target == "10.0.0.2:7531"
    assert HostAd("Den", "fe80::1", 7531, "", "1").target == "[fe80::1]:7531"


class _Info:
    port = 47531
    addresses = (("127.0.0.1", 47531),)
    fingerprint = FP


async def test_mdns_advertise_and_browse_on_loopback() -> None:
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: advertise_host(_Info(), "Test den", interfaces=["127.0.0.1"])
            )
            await trio.sleep(0.3)
            found = await browse(1.5, interfaces=["127.0.0.1"])
            nursery.cancel_scope.cancel()
    except OSError as exc:
        pytest.skip(f"multicast unavailable: {exc}")
    ours = [ad for ad in found if ad.port == _Info.port]
    if not ours:
        pytest.skip("no mDNS answer on loopback (multicast filtered here)")
    assert ours[0].name == "Test den" and ours[0].fp == "5d91cd5cf1c80ab6"
    assert ours[0].address == "127.0.0.1" and ours[0].proto == "1"


def test_discover_command_lists_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from click.testing import CliRunner

    from client import discover_cmd as discover
    from client.cli import cli

    ads = [HostAd("Ann's table", "10.0.0.2", 7531, "5d91cd5cf1c80ab6", "1")]

    async def fake_browse(timeout: float, **_: object) -> list[HostAd]:
        return ads

    monkeypatch.setattr(discover, "browse", fake_browse)
    result = CliRunner().invoke(cli, ["discover", "--timeout", "0.5"])
    assert result.exit_code == 0
    shown = "SHA256:5d:91:cd:5c:f1:c8:0a:b6"  # the start of FP, as the host's screen shows it
    assert FP.startswith(shown)
    assert result.output == f"Ann's table  10.0.0.2:7531          fingerprint {shown}...\n"
    result = CliRunner().invoke(cli, ["discover", "--json"])
    assert json.loads(result.output)["target"] == "10.0.0.2:7531"
    ads.clear()
    result = CliRunner().invoke(cli, ["discover"])
    assert result.exit_code == 0 and "join by address instead" in result.output


class _Wildcard:
    port = 7531
    addresses = (("0.0.0.0", 7531), ("::", 7531))
    fingerprint = FP


def test_a_wildcard_host_advertises_every_lan_address_and_no_loopback() -> None:
    """Issue 20: with no default route the host advertised 127.0.0.1; every interface counts."""
    every = ["127.0.0.1", "10.77.0.1", "192.168.1.5", "::1", "fe80::fc:ff:fe00:1", "fd00::2"]
    assert lan_addresses(_Wildcard(), every) == [
        "10.77.0.1",
        "192.168.1.5",
        "fd00::2",
        "fe80::fc:ff:fe00:1",
    ]
    only_v4 = type("Info", (), {"addresses": (("0.0.0.0", 7531),)})()
    assert lan_addresses(only_v4, every) == ["10.77.0.1", "192.168.1.5"]
    assert lan_addresses(_Wildcard(), ["127.0.0.1", "::1"]) == ["127.0.0.1", "::1"]
    bound = type("Info", (), {"addresses": (("10.77.0.1", 7531),)})()
    assert lan_addresses(bound, every) == ["10.77.0.1"]
    assert all(not a.startswith("127.") for a in lan_addresses(_Wildcard()))  # this machine


def test_discover_shows_every_address_of_a_host(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from click.testing import CliRunner

    from client import discover_cmd as discover
    from client.cli import cli

    ad = HostAd("Den", "10.77.0.1", 7531, "", "1", ("10.77.0.1", "fe80::1%veth1"))

    async def fake_browse(timeout: float, **_: object) -> list[HostAd]:
        return [ad]

    monkeypatch.setattr(discover, "browse", fake_browse)
    result = CliRunner().invoke(cli, ["discover"])
    assert result.exit_code == 0
    assert result.output.splitlines()[1].split() == ["[fe80::1%veth1]:7531", "(also)"]
    row = json.loads(CliRunner().invoke(cli, ["discover", "--json"]).output)
    assert row["addresses"] == ["10.77.0.1", "fe80::1%veth1"]
    assert row["targets"] == ["10.77.0.1:7531", "[fe80::1%veth1]:7531"]
