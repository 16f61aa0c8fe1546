"""The host's persistent TLS certificate and Ed25519 signing key."""

from __future__ import annotations

import re
import socket
import ssl
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import trio

import protocol.table_messages as tm
from host.server.identity import (
    CERT_FILE,
    KEY_FILE,
    SIGNING_KEY_FILE,
    IdentityError,
    default_host_name,
    load_or_create_identity,
)
from host.server.server import HostConfig, HostInfo, serve_host
from net.session import open_session
from net.trust import HostKeyChanged, open_stream
from protocol.limits import MAX_NAME_LEN
from protocol.messages import Welcome

FINGERPRINT = re.compile(r"SHA256(:[0-9a-f]{2}){32}")


def test_identity_is_created_private_and_survives_reloading(tmp_path: Path) -> None:
    first = load_or_create_identity(tmp_path)
    for name in (CERT_FILE, KEY_FILE, SIGNING_KEY_FILE):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600
    assert FINGERPRINT.fullmatch(first.fingerprint)
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", first.spki_fingerprint)
    again = load_or_create_identity(tmp_path)
    assert again.fingerprint == first.fingerprint
    assert again.signing_public_key == first.signing_public_key
    assert len(first.signing_public_key) == 32
    assert first.server_ssl_context().minimum_version is ssl.TLSVersion.TLSv1_3


def test_a_damaged_key_file_is_reported_not_replaced(tmp_path: Path) -> None:
    load_or_create_identity(tmp_path)
    (tmp_path / SIGNING_KEY_FILE).write_text("not a key")
    with pytest.raises(IdentityError, match="signing key"):
        load_or_create_identity(tmp_path)
    assert (tmp_path / SIGNING_KEY_FILE).read_text() == "not a key"


async def test_tls_host_serves_tls13_with_its_pinned_fingerprint(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    config = HostConfig(data_dir=tmp_path, bind="127.0.0.1", port=0, advertise=False)
    info: HostInfo = await nursery.start(serve_host, config)
    assert info.tls
    connected = await open_stream("127.0.0.1", info.port, expect=info.fingerprint, remember=False)
    stream = connected.stream
    assert isinstance(stream, trio.SSLStream)
    assert stream.version() == "TLSv1.3"
    async with open_session(stream) as client:
        assert client.welcome is not None
        assert client.welcome.fingerprint == load_or_create_identity(tmp_path).spki_fingerprint
        assert isinstance(await client.request(tm.ListTables()), tm.Tables)
    wrong = "SHA256:" + ":".join(["00"] * 32)
    with pytest.raises(HostKeyChanged, match="does not match"):
        await open_stream("127.0.0.1", info.port, expect=wrong, remember=False)


@pytest.mark.parametrize(
    ("machine", "expected"),
    [
        ("den-pc.example.org", "onecard on den-pc"),
        ("Attic", "onecard on Attic"),
        ("x" * 40, "onecard on " + "x" * 21),
        ("caf\u00e9\tbar\x00.lan", "onecard on caf\u00e9bar"),
        ("localhost", "onecard host"),
        ("", "onecard host"),
    ],
)
async def test_hosts_are_named_after_their_machine_by_default(
    nursery: trio.Nursery,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    machine: str,
    expected: str,
) -> None:
    """Two hosts on one LAN started without --name must differ: a client keeps a host's name
    with its pin and refuses a new certificate under a pinned name (issue 25). The default
    name is a valid ``welcome.host_name`` whatever the machine is called."""
    monkeypatch.setattr(socket, "gethostname", lambda: machine)
    assert default_host_name() == expected
    assert len(expected) <= MAX_NAME_LEN
    config = HostConfig(data_dir=tmp_path, bind="127.0.0.1", port=0, advertise=False)
    assert config.name == expected
    info: HostInfo = await nursery.start(serve_host, config)
    connected = await open_stream("127.0.0.1", info.port, expect=info.fingerprint, remember=False)
    async with open_session(connected.stream) as client:
        assert isinstance(client.welcome, Welcome)
        assert client.welcome.host_name == expected


def test_a_machine_whose_name_cannot_be_read_gives_the_plain_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken() -> str:
        raise OSError("no name")

    monkeypatch.setattr(socket, "gethostname", broken)
    assert default_host_name() == "onecard host"


def test_first_starts_at_once_agree_on_one_identity(tmp_path: Path) -> None:
    """Several processes creating the identity of a new data dir at the same moment all end
    with the same certificate and keys, the certificate matching its key, and no temp files."""
    script = (
        "import sys; from pathlib import Path; from host.server.identity import "
        "load_or_create_identity;"
        "i = load_or_create_identity(Path(sys.argv[1]));"
        "i.server_ssl_context();"  # loads the certificate with its key: they must match
        "print(i.fingerprint, i.signing_public_key.hex())"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len(set(outs)) == 1, outs
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
