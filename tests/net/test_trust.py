"""TLS pinning against a real TLS 1.3 listener with the host's persistent certificate: the pin
is stored on first use, a changed certificate is refused *before* any application byte is
sent, and the known_hosts file keeps one line per host."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio

from host.server.identity import load_or_create_identity
from net.discover import fingerprint_prefix
from net.trust import (
    Advertised,
    HostKeyChanged,
    KnownHosts,
    NotTheAdvertisedHost,
    TrustError,
    format_fingerprint,
    open_stream,
)

Serve = Callable[[Callable[[trio.SSLStream[trio.SocketStream]], Awaitable[None]]], Awaitable[int]]


async def _tls_server(serve_tls: Serve, received: list[bytes]) -> int:
    """A TLS server that keeps whatever it receives."""

    async def handler(stream: trio.SSLStream[trio.SocketStream]) -> None:
        try:
            await stream.do_handshake()
            while data := await stream.receive_some(4096):
                received.append(data)
        except trio.BrokenResourceError:
            pass

    return await serve_tls(handler)


async def test_pin_on_first_use_then_refuse_a_changed_certificate(
    serve_tls: Serve, tmp_path: Path
) -> None:
    received: list[bytes] = []
    port = await _tls_server(serve_tls, received)
    pins = KnownHosts(tmp_path / "known_hosts")
    first = await open_stream("127.0.0.1", port, known_hosts=pins)
    assert first.first_use and first.fingerprint == pins.get(f"127.0.0.1:{port}")
    assert first.fingerprint is not None and first.fingerprint.startswith("SHA256:")
    assert len(first.fingerprint.split(":")) == 33
    await first.stream.send_all(b"hello")
    await first.stream.aclose()
    again = await open_stream("127.0.0.1", port, known_hosts=pins)
    assert not again.first_use and again.fingerprint == first.fingerprint
    await again.stream.aclose()

    wrong = format_fingerprint(b"another certificate")
    pins.pin(f"127.0.0.1:{port}", wrong)
    before = len(received)
    with pytest.raises(HostKeyChanged) as caught:
        await open_stream("127.0.0.1", port, known_hosts=pins)
    message = str(caught.value)
    assert "HAS CHANGED" in message and wrong in message and str(pins.path) in message
    await trio.sleep(0.2)  # let the server read whatever might have been sent
    assert len(received) == before  # nothing was sent to the impostor
    assert pins.get(f"127.0.0.1:{port}") == wrong  # the pin is never silently replaced


async def test_expected_fingerprint_bypasses_known_hosts(serve_tls: Serve, tmp_path: Path) -> None:
    port = await _tls_server(serve_tls, [])
    pins = KnownHosts(tmp_path / "known_hosts")
    with pytest.raises(HostKeyChanged):
        await open_stream("127.0.0.1", port, known_hosts=pins, expect="SHA256:00")
    assert not pins.path.exists()


async def test_plain_tcp_to_a_tls_host_and_no_host_fail_cleanly(
    serve_tls: Serve, tmp_path: Path
) -> None:
    with pytest.raises(TrustError, match=r"cannot connect to 127\.0\.0\.1:1"):
        await open_stream("127.0.0.1", 1, known_hosts=KnownHosts(tmp_path / "kh"))


def test_known_hosts_file_format(tmp_path: Path) -> None:
    pins = KnownHosts(tmp_path / "sub" / "known_hosts")
    pins.pin("b:1", "SHA256:bb")
    pins.pin("a:2", "SHA256:aa")
    pins.pin("b:1", "SHA256:cc")
    assert pins.path.read_text() == "a:2 SHA256:aa\nb:1 SHA256:cc\n"
    pins.path.write_text("# comment\n\na:2 SHA256:aa\n")
    assert pins.get("a:2") == "SHA256:aa" and pins.get("b:1") is None


async def test_a_deferred_pin_is_stored_only_on_confirm(serve_tls: Serve, tmp_path: Path) -> None:
    port = await _tls_server(serve_tls, [])
    pins = KnownHosts(tmp_path / "known_hosts")
    first = await open_stream("127.0.0.1", port, known_hosts=pins, pin=False)
    assert first.first_use and pins.get(f"127.0.0.1:{port}") is None
    first.confirm()
    assert pins.get(f"127.0.0.1:{port}") == first.fingerprint
    await first.stream.aclose()
    again = await open_stream("127.0.0.1", port, known_hosts=pins, pin=False)
    assert not again.first_use and again.pending is None
    again.confirm()  # nothing to store
    await again.stream.aclose()


async def test_a_pin_stored_meanwhile_by_another_client_is_not_overwritten(
    serve_tls: Serve, tmp_path: Path
) -> None:
    """Between open_stream(pin=False) and confirm() (the welcome), another process pinned a
    different certificate for the address: confirm refuses instead of replacing it."""
    port = await _tls_server(serve_tls, [])
    pins = KnownHosts(tmp_path / "known_hosts")
    first = await open_stream("127.0.0.1", port, known_hosts=pins, pin=False)
    pins.pin(f"127.0.0.1:{port}", "SHA256:00:11")
    with pytest.raises(HostKeyChanged):
        first.confirm()
    assert pins.get(f"127.0.0.1:{port}") == "SHA256:00:11"
    await first.stream.aclose()


async def _fingerprint(port: int, tmp_path: Path) -> str:
    """The fingerprint the TLS server on ``port`` presents (pinned in a scratch file)."""
    seen = await open_stream("127.0.0.1", port, known_hosts=KnownHosts(tmp_path / "scratch"))
    await seen.stream.aclose()
    assert seen.fingerprint is not None
    return seen.fingerprint


async def test_a_certificate_other_than_the_advertised_one_is_refused_naming_both(
    serve_tls: Serve, tmp_path: Path
) -> None:
    """Issue 25: a fake host advertising the real one's name and fingerprint hint."""
    received: list[bytes] = []
    port = await _tls_server(serve_tls, received)
    seen = await _fingerprint(port, tmp_path)
    pins = KnownHosts(tmp_path / "known_hosts")
    real = Advertised("Den", "0123456789abcdef")
    with pytest.raises(NotTheAdvertisedHost) as caught:
        await open_stream("127.0.0.1", port, known_hosts=pins, pin=False, advertised=real)
    message = str(caught.value)
    assert "SHA256:01:23:45:67:89:ab:cd:ef..." in message and seen in message
    assert "'Den'" in message and f"onecard join 127.0.0.1:{port}" in message
    assert "\n" not in message
    assert not pins.path.exists()  # nothing pinned
    await trio.sleep(0.2)
    assert received == []  # nothing sent
    # the advertisement of the host itself passes: its own fingerprint's first digits
    own = Advertised("Den", fingerprint_prefix(seen))
    ok = await open_stream("127.0.0.1", port, known_hosts=pins, pin=False, advertised=own)
    assert ok.first_use
    await ok.stream.aclose()


async def test_a_new_certificate_taking_a_pinned_hosts_name_is_refused(
    serve_tls: Serve, tmp_path: Path
) -> None:
    """The fake advertises its own fingerprint under the name of a host joined before."""
    port = await _tls_server(serve_tls, [])
    seen = await _fingerprint(port, tmp_path)
    pins = KnownHosts(tmp_path / "known_hosts")
    real = format_fingerprint(b"the real host")
    pins.pin("10.0.0.2:7531", real, name="Den")
    fake = Advertised("Den", fingerprint_prefix(seen))
    with pytest.raises(NotTheAdvertisedHost) as caught:
        await open_stream("127.0.0.1", port, known_hosts=pins, pin=False, advertised=fake)
    message = str(caught.value)
    assert real in message and seen in message and "10.0.0.2:7531" in message
    assert pins.get(f"127.0.0.1:{port}") is None
    # another name, or the same host by address, is no claim on the pinned one
    other = Advertised("Attic", fingerprint_prefix(seen))
    ok = await open_stream("127.0.0.1", port, known_hosts=pins, pin=False, advertised=other)
    await ok.stream.aclose()
    by_address = await open_stream("127.0.0.1", port, known_hosts=pins, pin=False)
    await by_address.stream.aclose()


async def test_a_known_host_at_a_new_address_is_no_first_use(
    serve_tls: Serve, tmp_path: Path
) -> None:
    """Pins belong to the certificate: the host that moved keeps its pin and deal key."""
    port = await _tls_server(serve_tls, [])
    seen = await _fingerprint(port, tmp_path)
    pins = KnownHosts(tmp_path / "known_hosts")
    pins.pin("10.0.0.2:7531", seen, name="Den")
    pins.pin_deal_key("10.0.0.2:7531", b"\x01" * 32)
    moved = await open_stream(
        "127.0.0.1", port, known_hosts=pins, pin=False, advertised=Advertised("Den", "")
    )
    assert not moved.first_use and moved.pending is pins
    moved.confirm("Den")
    await moved.stream.aclose()
    assert pins.get(f"127.0.0.1:{port}") == seen
    assert sorted(pins.named("Den")) == sorted(
        [(f"127.0.0.1:{port}", seen), ("10.0.0.2:7531", seen)]
    )
    assert pins.deal_key(f"127.0.0.1:{port}") == b"\x01" * 32


async def test_an_older_known_hosts_file_is_read_and_gets_the_hosts_name(
    serve_tls: Serve, tmp_path: Path
) -> None:
    port = await _tls_server(serve_tls, [])
    seen = await _fingerprint(port, tmp_path)
    pins = KnownHosts(tmp_path / "known_hosts")
    pins.path.write_text(f"127.0.0.1:{port} {seen}\n127.0.0.1:{port}#deal-key {'ab' * 32}\n")
    again = await open_stream("127.0.0.1", port, known_hosts=pins, pin=False)
    assert not again.first_use and again.pending is None
    again.confirm("Den room")
    await again.stream.aclose()
    assert pins.path.read_text() == (
        f"127.0.0.1:{port} {seen} name=Den%20room\n127.0.0.1:{port}#deal-key {'ab' * 32}\n"
    )
    assert pins.named("Den room") == [(f"127.0.0.1:{port}", seen)]
    assert pins.deal_key(f"127.0.0.1:{port}") == bytes.fromhex("ab" * 32)


async def test_a_host_with_a_new_certificate_is_told_how_to_proceed(
    serve_tls: Serve, tmp_path: Path
) -> None:
    """The host's data directory was reset (a new certificate): the warning says to remove
    every line of the old certificate, not one address's, and doing so lets the LAN menu's
    host of that name be joined again (a line left at its other address would refuse it)."""
    port = await _tls_server(serve_tls, [])
    seen = await _fingerprint(port, tmp_path)
    old = format_fingerprint(b"the certificate before the reset")
    pins = KnownHosts(tmp_path / "known_hosts")
    pins.pin(f"127.0.0.1:{port}", old, name="Den")
    pins.pin("10.0.0.2:7531", old, name="Den")  # the same host, at its other address
    ad = Advertised("Den", fingerprint_prefix(seen))
    with pytest.raises(HostKeyChanged) as caught:
        await open_stream("127.0.0.1", port, known_hosts=pins, pin=False, advertised=ad)
    message = str(caught.value)
    assert f"screen shows {seen}" in message
    assert f"remove every line holding {old} from {pins.path}" in message
    kept = [line for line in pins.path.read_text().splitlines() if old not in line]
    pins.path.write_text("".join(f"{line}\n" for line in kept))
    again = await open_stream("127.0.0.1", port, known_hosts=pins, pin=False, advertised=ad)
    assert again.first_use
    again.confirm("Den")
    await again.stream.aclose()
    assert pins.named("Den") == [(f"127.0.0.1:{port}", seen)]


async def test_a_refusal_names_the_address_to_join_with_ipv6_in_brackets(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    """Both refusals of a discovered host end with a command that works as printed (an IPv6
    address in brackets) and say when to use it: the host's own screen shows that fingerprint;
    the pinned-name one says why a real host may be refused (a new certificate)."""
    identity = load_or_create_identity(tmp_path / "tls-server")

    async def handler(stream: trio.SSLStream[trio.SocketStream]) -> None:
        with contextlib.suppress(trio.BrokenResourceError):
            await stream.do_handshake()
            await stream.receive_some(1)

    serve = functools.partial(
        trio.serve_ssl_over_tcp, handler, 0, identity.server_ssl_context(), host="::1"
    )
    listeners = await nursery.start(serve)
    port = int(listeners[0].transport_listener.socket.getsockname()[1])
    seen = identity.fingerprint
    pins = KnownHosts(tmp_path / "known_hosts")
    fake = Advertised("Den", "0123456789abcdef")
    with pytest.raises(NotTheAdvertisedHost) as caught:
        await open_stream("::1", port, known_hosts=pins, pin=False, advertised=fake)
    message = str(caught.value)
    assert message.endswith(f"screen shows {seen}, join it by address: onecard join [::1]:{port}")
    assert "answering in its place" in message
    pins.pin("10.0.0.2:7531", format_fingerprint(b"the host joined before"), name="Den")
    named = Advertised("Den", fingerprint_prefix(seen))
    with pytest.raises(NotTheAdvertisedHost) as caught:
        await open_stream("::1", port, known_hosts=pins, pin=False, advertised=named)
    message = str(caught.value)
    assert message.endswith(f"onecard join [::1]:{port}") and "a new certificate" in message
    assert "(at 10.0.0.2:7531)" in message and "\n" not in message


async def test_a_name_that_only_looks_new_is_no_way_round_the_pinned_names_check(
    serve_tls: Serve, tmp_path: Path
) -> None:
    """A fake that adds a space, a zero-width character or capitals to a pinned host's name
    reads the same in the LAN list: it is refused like one using the name itself."""
    port = await _tls_server(serve_tls, [])
    seen = await _fingerprint(port, tmp_path)
    pins = KnownHosts(tmp_path / "known_hosts")
    pins.pin("10.0.0.2:7531", format_fingerprint(b"the real host"), name="Den")
    for lookalike in ("Den ", "DEN", "D\u200ben", "\uff24en"):
        fake = Advertised(lookalike, fingerprint_prefix(seen))
        with pytest.raises(NotTheAdvertisedHost):
            await open_stream("127.0.0.1", port, known_hosts=pins, pin=False, advertised=fake)
    other = await open_stream(
        "127.0.0.1", port, known_hosts=pins, pin=False, advertised=Advertised("Den 2", "")
    )
    await other.stream.aclose()
