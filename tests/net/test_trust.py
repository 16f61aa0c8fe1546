"""TLS pinning against a real TLS 1.3 listener with the host's persistent certificate: the pin
is stored on first use, a changed certificate is refused *before* any application byte is
sent, and the known_hosts file keeps one line per host."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio

from net.trust import HostKeyChanged, KnownHosts, TrustError, format_fingerprint, open_stream

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
