"""A client written from the published spec alone plays a whole game of each game on a real host.

`spec_client.py` imports nothing from `protocol/`, `host/` or `client/`; this test only starts
the host through its command line (`onecard host --insecure --port 0`), reads the port it
prints, and checks the spec client's own cardfair/v1 verdicts. The vector tests check that
implementation against `spec/vectors/*.json` first. Tests that feed the client a changed game
event wrap its `conn.recv`, as a host lying about a card would. Others check the lobby's
`bad_field` refusals, numbered chat with named spectators, and first-use TLS pinning (2.1);
the games also check `explain` (4.2), and the lobby tests the refusals of 2.4, 2.6, 3.2 and 4.5.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import spec_client as sc
from hosts import running_host

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "spec" / "vectors"


def _vec(name: str) -> Any:
    return json.loads((VECTORS / name).read_text())


def test_primitive_vectors() -> None:
    p = _vec("primitives.json")
    for case in p["encodings"]["enc"]:
        fields = [bytes.fromhex(f) for f in case["fields_hex"]] if "fields_hex" in case else None
        fields = fields if fields else [f.encode() for f in case["fields_utf8"]]
        assert sc.enc(*fields).hex() == case["hex"]
    for name, hx in p["encodings"]["labels"].items():
        assert sc.label(name).hex() == hx
    i = p["inputs"]
    pk, secret = bytes.fromhex(i["host_pk"]), bytes.fromhex(i["secret"])
    reveals = [bytes.fromhex(r) for r in i["reveals"]]
    assert sc.deck_digest(i["deck"]).hex() == p["deck_digest"]
    assert sc.expected_deck("one", 2, {}) == p["deck_one"]
    assert sc.deck_digest(p["deck_one"]).hex() == p["deck_digest_one"]
    assert sc.canonical_deck(jokers=("JB", "JR")) == i["deck"]
    ctx = sc.make_ctx(
        i["table_id"], i["hand_no"], i["ruleset_id"], i["deck"], pids=i["pids"], host_pk=pk
    )
    assert ctx.hex() == p["ctx"]
    assert sc.host_commit(ctx, secret).hex() == p["host_commit"]
    for pid, r in zip(i["pids"], reveals, strict=True):
        assert sc.player_commit(ctx, pid, r).hex() == p["player_commits"][pid]
    mix = sc.make_mix(ctx, reveals)
    assert mix.hex() == p["mix"]
    key = sc.deck_key(secret, ctx, mix)
    assert key.hex() == p["deck_key"]
    reader = sc.Stream(key, 0)
    assert [f"{reader.word():08x}" for _ in p["stream0_first_words"]] == p["stream0_first_words"]
    for case in p["below"]:
        reader = sc.Stream(key, case["stream"])
        assert [reader.below(case["n"]) for _ in case["results"]] == case["results"]
    tr = p["transcript"]
    nxt = sc.next_transcript(
        *(bytes.fromhex(tr[k]) if k != "type" else tr[k] for k in ("prev", "type", "body", "sig"))
    )
    assert nxt.hex() == tr["next"] and sc.fingerprint(nxt) == tr["fingerprint"]
    assert tr["signer_pk"] == _vec("signed.json")["public_key"]
    body, sig = bytes.fromhex(tr["body"]), bytes.fromhex(tr["sig"])
    sc.verify_signature(bytes.fromhex(tr["signer_pk"]), tr["type"], body, sig)
    pr = tr["private"]
    p2 = sc.next_private(*(bytes.fromhex(pr[k]) for k in ("prev", "transcript", "body", "sig")))
    assert p2.hex() == pr["next"]


def test_shuffle_and_signature_vectors() -> None:
    s = _vec("shuffles.json")
    key = bytes.fromhex(s["deck_key"])
    for name in ("deck54", "deck_one"):
        assert sc.shuffle(key, s[name]["stream"], s[name]["cards"]) == s[name]["order"]
    for case in s["reshuffles"]:
        assert sc.shuffle(key, case["stream"], case["cards"]) == case["order"]
    for case in s["dealer"]["choices"]:
        assert sc.choose_dealer(key, case["seats"]) == case["dealer"]
    g = _vec("signed.json")
    body, sig = bytes.fromhex(g["body"]), bytes.fromhex(g["sig"])
    assert sc.enc(sc.label("sig"), g["type"], body).hex() == g["signed_bytes"]
    sc.verify_signature(bytes.fromhex(g["public_key"]), g["type"], body, sig)
    with pytest.raises(sc.FairnessError):
        sc.verify_signature(bytes.fromhex(g["public_key"]), g["type"], body + b"\x00", sig)


def test_record_vectors() -> None:
    rec = _vec("hand_record.json")
    v = sc.verify_record(rec)
    assert v.result == "valid" and v.fingerprint == rec["fingerprint"]
    for case in _vec("tampered_records.json")["cases"]:
        with pytest.raises((sc.FairnessError, KeyError, TypeError, ValueError)):
            sc.verify_record(case["record"])


@pytest.fixture(scope="module")
def host(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[dict[str, Any]]:
    """One host process for this module's tests, each at tables of its own (starting one per
    test cost more than most tests); ``parametrize("host", [True], indirect=True)``: with TLS."""
    tls = bool(getattr(request, "param", False))
    with running_host(tmp_path_factory.mktemp("host"), tls=tls) as info:
        yield info


Recv = Callable[[], dict[str, Any]]


def _play(
    host: dict[str, Any],
    game: str,
    seats: int,
    options: dict[str, Any],
    wrap: Callable[[Recv], Recv] | None = None,
) -> sc.GameResult:
    """Play one game with the spec client; `wrap` may replace what the client reads."""
    client = sc.SpecClient(host["addr"], host["port"], name="Spec", tls=host["tls_on"])
    if wrap is not None:
        client.conn.recv = wrap(client.conn.recv)  # type: ignore[method-assign]
    try:
        if host["tls_on"]:
            cert = client.conn.cert_der
            assert cert is not None and client.conn.sock.version() == "TLSv1.3"  # type: ignore[attr-defined]
            assert sc.cert_fingerprint(cert) == host["tls"]  # 2.1: what the user pins
            assert client.handshake()["fingerprint"] == sc.spki_fingerprint(cert)  # 2.5
        result = client.play_game(game, seats, options, deadline=45)
    finally:
        client.close()
    assert result.outcome["termination"] and isinstance(result.outcome["winners"], list)
    assert result.actions > 0
    assert result.deal_key_fingerprint == host["deal_key"]  # 7.6: fingerprint of H(host_pk)
    assert result.hands, "no fair deal was seen"
    for hand_no, v in result.hands.items():
        assert v.result in ("valid", "void"), hand_no
    assert any(v.result == "valid" and v.cards_checked > 0 for v in result.hands.values())
    assert set(result.records) == set(result.hands)
    for hand_no, rv in result.records.items():
        assert rv.result == result.hands[hand_no].result
        assert rv.t == result.hands[hand_no].t  # the record has the transcript seen live
    return result


def _check_probes(result: sc.GameResult, *, blunders: bool) -> None:
    """4.2: what the client's `explain`s and its `ZZ` act got (each reply checked as it came)."""
    probes = result.probes
    assert probes.dropped == 0, "a probe was dropped for rate; nothing was checked by it"
    assert probes.bad_card is not None and probes.bad_card["fatal"] is False
    kinds = [kind for kind, _ in probes.explained]
    assert "unplayable" in kinds and kinds.count("playable") == 1, kinds
    for kind, reply in probes.explained:
        if kind == "playable":
            assert reply["reason"] == "" and reply["blunder"] is False
        elif blunders:
            assert reply["blunder"] is True and isinstance(reply["action"], dict), reply
        else:
            assert reply["reason"] and reply["blunder"] is False and reply["action"] is None
    if blunders:  # the first blunder offered was sent: ack, then a public blunder event
        assert probes.blunder is not None and probes.blunder["seat"] == result.seat
    else:
        assert probes.blunder is None


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        # three seats and an attack cap keep One Card short (at worst 1,000 turns, a third ours)
        ("one-card", 3, {"attack_cap": 5}),
        ("black-jack", 2, {}),
        ("black-jack", 2, {"blunders": "off"}),
        ("one", 2, {"target": 5}),
    ],
)
def test_spec_client_plays_a_whole_game(
    host: dict[str, Any], game: str, seats: int, options: dict[str, Any]
) -> None:
    """Whole games, asking `explain` about held cards and sending one `act` with card `ZZ`."""
    # the probes need a turn with a card we may play: a seat dealt none before the game ended
    # (about one Black Jack deal in 1,200) plays another game, at most three
    for _ in range(3):
        result = _play(host, game, seats, options)
        if result.probes.bad_card is not None:
            break
    _check_probes(result, blunders=game == "black-jack" and options.get("blunders") != "off")


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("one-card", 2, {"attack_cap": 5}),
        ("one-card", 4, {"attack_cap": 5}),
        ("black-jack", 3, {}),
        ("black-jack", 4, {}),
        ("one", 3, {"target": 5}),
        ("one", 4, {"target": 5}),
    ],
)
def test_spec_client_plays_every_game_at_two_to_four_seats(
    host: dict[str, Any], game: str, seats: int, options: dict[str, Any]
) -> None:
    """Issue 17: every game at 2-4 seats (with the cases above), every deal verified live and
    from its record; the live checks of 7.9 include where each card goes and each reshuffle."""
    _play(host, game, seats, options)


@pytest.mark.parametrize("host", [True], indirect=True)
def test_spec_client_over_tls(host: dict[str, Any]) -> None:
    result = _play(host, "one", 2, {"target": 1, "downtown": "always"})
    assert result.outcome["termination"] == "target"
    _check_probes(result, blunders=False)


def test_check_explained_refuses_replies_the_spec_does_not_allow() -> None:
    good = {
        "table": "t",
        "card": "QS",
        "reason": "follow suit",
        "blunder": True,
        "action": {"type": "play", "cards": ["QS"]},
    }
    sc.check_explained(good, table="t", card="QS", playable=False, blunders=True, cut=False)
    legal = {**good, "reason": "", "blunder": False, "action": None}
    sc.check_explained(legal, table="t", card="QS", playable=True, blunders=True, cut=False)
    sc.check_explained(legal, table="t", card="QS", playable=False, blunders=True, cut=True)
    bad = [
        ({**good, "card": "qs"}, True),  # not the canonical form
        ({**good, "blunder": 1}, True),
        ({**good, "action": []}, True),
        ({**good, "action": {"type": "play", "cards": ["QS", "QH"]}}, True),  # not alone
        ({**good, "reason": ""}, True),
        ({**good, "blunder": False, "action": None}, True),  # blunders on: one is offered
        (good, False),  # a blunder where the game takes none
        ({**good, "blunder": False}, False),  # an action neither legal nor a blunder
        (legal, False),  # a card in no (uncut) legal action needs a reason
    ]
    for reply, blunders in bad:
        with pytest.raises(sc.SpecError):
            sc.check_explained(
                reply, table="t", card="QS", playable=False, blunders=blunders, cut=False
            )
    with pytest.raises(sc.SpecError):
        sc.check_explained(good, table="t", card="QS", playable=True, blunders=True, cut=False)


def _table_draws(v: sc.HandVerifier, *, face_up: bool) -> set[tuple[int, int]]:
    """Positions of the hand's draws to the table (`to` nil), face up or face down."""
    return {
        (d["stream"], d["pos"])
        for d in v.draws.values()
        if d["to"] is None and (d["card"] is not None) == face_up
    }


def test_one_checks_the_centre_card_of_every_hand(host: dict[str, Any]) -> None:
    """7.9: ONE's centre card, dealt face down to the table, is checked when `centre` shows it."""
    result = _play(host, "one", 2, {"target": 5})
    for hand_no, v in result.hands.items():
        if v.result != "valid":
            continue
        assert _table_draws(v, face_up=False) == {(0, 24)}, hand_no
        assert (0, 24) in {(s, pos) for s, pos, _ in v.shown_checked}, hand_no
        # 12 own `card`s, the same 12 again in the private `hand` event, and the centre card
        assert v.cards_checked == 12 + 12 + 1, hand_no


def test_black_jack_checks_the_turned_up_card(host: dict[str, Any]) -> None:
    """Black Jack's `turn_up` names one `card` with `positions` of length 1 (7.9)."""
    result = _play(host, "black-jack", 2, {})
    v = result.hands[min(result.hands)]
    turned = _table_draws(v, face_up=True)
    assert turned and turned <= {(s, pos) for s, pos, _ in v.shown_checked}


def _other_card(card: str) -> str:
    return "AS" if card != "AS" else "KS"


def _is_centre(msg: dict[str, Any]) -> bool:
    return msg["type"] == "event" and msg["event"].get("kind") == "centre"


def _is_hand_end(msg: dict[str, Any]) -> bool:
    return msg["type"] == "fair" and msg["msg"][0] == "hand_end"


def test_a_changed_centre_card_fails_the_hand(host: dict[str, Any]) -> None:
    def wrap(recv: Recv) -> Recv:
        def tampered() -> dict[str, Any]:
            msg = recv()
            if _is_centre(msg):
                ev = msg["event"]
                msg = {**msg, "event": {**ev, "card": _other_card(ev["card"])}}
            return msg

        return tampered

    with pytest.raises(sc.FairnessError, match=r"shown cards .* at \[\(0, 24\)\]"):
        _play(host, "one", 2, {"target": 1}, wrap)


def test_a_centre_card_never_shown_fails_the_hand(host: dict[str, Any]) -> None:
    def wrap(recv: Recv) -> Recv:
        def dropping() -> dict[str, Any]:
            msg = recv()
            return recv() if _is_centre(msg) else msg

        return dropping

    with pytest.raises(sc.FairnessError, match=r"at \[0, 24\] was never shown before hand_end"):
        _play(host, "one", 2, {"target": 1}, wrap)


def _centre_after_hand_end(
    *, keep: bool, change: bool, delivered: list[str]
) -> Callable[[Recv], Recv]:
    """Show the `centre` event (again, if `keep`) right after the fair `hand_end`."""

    def wrap(recv: Recv) -> Recv:
        held: list[dict[str, Any]] = []
        queue: list[dict[str, Any]] = []

        def moving() -> dict[str, Any]:
            msg = queue.pop(0) if queue else recv()
            while _is_centre(msg) and not keep:
                held.append(msg)
                msg = queue.pop(0) if queue else recv()
            if _is_centre(msg) and keep:
                held.append(msg)
            if _is_hand_end(msg) and held:
                for ev in held:
                    card = ev["event"]["card"]
                    shown = _other_card(card) if change else card
                    queue.append({**ev, "event": {**ev["event"], "card": shown}})
                held.clear()
            delivered.append(msg["type"] + (":centre" if _is_centre(msg) else ""))
            return msg

        return moving

    return wrap


def test_a_centre_card_first_shown_after_hand_end_fails_the_hand(host: dict[str, Any]) -> None:
    """Postponing the centre card past `hand_end` is not showing it (7.9)."""
    delivered: list[str] = []
    wrap = _centre_after_hand_end(keep=False, change=False, delivered=delivered)
    with pytest.raises(sc.FairnessError, match=r"at \[0, 24\] was never shown before hand_end"):
        _play(host, "one", 2, {"target": 1}, wrap)
    assert "event:centre" not in delivered


def test_a_card_shown_again_after_hand_end_is_checked_then(host: dict[str, Any]) -> None:
    delivered: list[str] = []
    wrap = _centre_after_hand_end(keep=True, change=False, delivered=delivered)
    result = _play(host, "one", 2, {"target": 1}, wrap)
    assert delivered.count("event:centre") == 2
    (v,) = result.hands.values()
    assert v.result == "valid" and v.cards_checked == 12 + 12 + 1 + 1
    assert [(s, pos) for s, pos, _ in v.shown_checked].count((0, 24)) == 2


def test_a_changed_card_shown_after_hand_end_fails_at_once(host: dict[str, Any]) -> None:
    delivered: list[str] = []
    wrap = _centre_after_hand_end(keep=True, change=True, delivered=delivered)
    with pytest.raises(sc.FairnessError, match=r"shown cards .* at \[\(0, 24\)\]"):
        _play(host, "one", 2, {"target": 1}, wrap)
    # the client stopped on the late event itself, right after hand_end, not at game_over
    assert delivered[-2:] == ["fair", "event:centre"]
    assert delivered.count("event:centre") == 2


def _client(host: dict[str, Any], **kw: Any) -> sc.SpecClient:
    client = sc.SpecClient(host["addr"], host["port"], tls=host["tls_on"], **kw)
    client.handshake()
    return client


@pytest.mark.parametrize(
    ("request_", "why"),
    [
        ({"game": "no-such-game", "seats": 2}, "unknown game"),
        ({"game": "one", "seats": 2, "options": {"no_such_option": 1}}, "unknown option"),
        ({"game": "one", "seats": 2, "options": {"target": "many"}}, "bad option value"),
        ({"game": "one", "seats": 9}, "seat count outside the game's range"),
    ],
)
def test_create_table_refuses_what_the_host_does_not_offer_with_bad_field(
    host: dict[str, Any], request_: dict[str, Any], why: str
) -> None:
    """3.2: an unknown game or option, a bad value or seat count is `bad_field`."""
    client = _client(host)
    try:
        before = client.request({"type": "list_tables"}, "tables")["tables"]
        with pytest.raises(sc.HostError) as refused:
            client.request({"type": "create_table", **request_}, "table_created")
        assert refused.value.code == "bad_field", why
        # the connection stays open (2.7: not fatal), and no table was made
        assert client.request({"type": "list_tables"}, "tables")["tables"] == before
    finally:
        client.close()


def test_chat_lines_are_numbered_and_a_repeated_backlog_is_skipped(
    host: dict[str, Any],
) -> None:
    """6: `chat_line.n` numbers a table's lines; `watch.name` names a spectator in chat."""
    ann, kib = _client(host, name="Ann"), _client(host, name="Kib")
    try:
        table = ann.request({"type": "create_table", "game": "one", "seats": 2}, "table_created")
        table_id = table["table"]
        ann.request({"type": "join", "table": table_id, "name": "Ann"}, "joined")
        kib.watch(table_id, name="Ann")  # a spectator may take a seated player's name
        kib.chat(table_id, "hello from the rail")
        ann.chat(table_id, "hi")
        lines = kib.wait_chat(2)
        assert [(ln["seat"], ln["name"], ln["text"], ln["n"]) for ln in lines] == [
            (None, "Ann", "hello from the rail", 1),
            (0, "Ann", "hi", 2),
        ]
        assert [sc.ChatLog.render(ln) for ln in lines] == [
            "Ann (watching): hello from the rail",
            "Ann: hi",
        ]
        assert [ln["n"] for ln in ann.wait_chat(2)] == [1, 2]
        # watching again sends the backlog again: both lines are skipped, not shown twice
        kib.watch(table_id)
        kib.sync()
        assert len(kib.chat_log.lines) == 2 and kib.chat_log.skipped == 2
        kib.chat(table_id, "again")
        kib.sync()
        last = kib.chat_log.lines[-1]
        assert (last["seat"], last["name"], last["n"]) == (None, "spectator", 3)
    finally:
        ann.close()
        kib.close()


def test_chat_log_shows_unnumbered_lines_and_skips_only_numbered_repeats() -> None:
    log = sc.ChatLog()
    line = {"table": "t1", "seat": 0, "name": "Ann", "text": "x"}
    assert log.add({**line, "n": 0}) and log.add(line)  # 0 or absent: not numbered
    assert log.add({**line, "n": 5}) and not log.add({**line, "n": 5})
    assert not log.add({**line, "n": 4}) and log.add({**line, "n": 0})
    assert log.add({**line, "table": "t2", "n": 1})  # numbered per table
    assert log.add({**line, "n": 6}) and log.skipped == 2


@pytest.mark.parametrize("host", [True], indirect=True)
def test_a_first_use_pin_is_stored_after_welcome_and_then_enforced(
    host: dict[str, Any],
) -> None:
    """2.1: pin the certificate on first use, after a valid `welcome`; refuse a changed one."""
    pins: dict[str, str] = {}
    client = sc.SpecClient(host["addr"], host["port"], tls=True, pins=pins)
    try:
        assert pins == {}  # not before the welcome
        client.handshake()
    finally:
        client.close()
    address = f"{host['addr']}:{host['port']}"
    assert pins == {address: host["tls"]}
    again = sc.SpecClient(host["addr"], host["port"], tls=True, pins=pins)
    again.handshake()
    again.close()
    wrong = {address: "SHA256:" + ":".join(["00"] * 32)}
    with pytest.raises(sc.ProtocolError, match="pinned"):
        sc.SpecClient(host["addr"], host["port"], tls=True, pins=wrong)
    assert wrong == {address: "SHA256:" + ":".join(["00"] * 32)}


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "not-onecard")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def test_a_tls_server_that_is_no_onecard_host_is_not_pinned(tmp_path: Path) -> None:
    """2.1: a TLS server answering `hello` with anything but `welcome` leaves no pin."""
    import socket
    import ssl
    import threading

    cert_path, key_path = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(cert_path, key_path)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        with context.wrap_socket(conn, server_side=True) as tls:
            tls.recv(4096)
            tls.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")  # some other service

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    pins: dict[str, str] = {}
    try:
        client = sc.SpecClient("127.0.0.1", port, tls=True, pins=pins)
        with pytest.raises(sc.ProtocolError):
            client.handshake()
        client.conn.sock.close()
    finally:
        server.join(timeout=10)
        listener.close()
    assert pins == {}


def _refused(client: sc.SpecClient, msg: dict[str, Any], want: str) -> str | None:
    """The error code a request gets (None: it got `want`)."""
    try:
        client.request(msg, want)
    except sc.HostError as refused:
        return refused.code
    return None


def test_lobby_refusals_of_strangers_and_of_requests_outside_a_game(
    host: dict[str, Any],
) -> None:
    """3.2 `add_bot` and `leave`, 4.2 `explain` and 4.5 `fair_commit`/`fair_reveal` refusals.

    Kib neither created the table nor sits there (watching does not count); none of the
    refusals is fatal, so each connection goes on working.
    """
    ann, kib = _client(host, name="Ann"), _client(host, name="Kib")
    try:
        table = ann.request({"type": "create_table", "game": "one", "seats": 2}, "table_created")
        tid = table["table"]
        ann.request({"type": "join", "table": tid, "name": "Ann"}, "joined")
        assert _refused(kib, {"type": "add_bot", "table": tid}, "bot_added") == "bad_state"
        assert _refused(kib, {"type": "leave", "table": tid}, "left") == "not_found"
        assert _refused(kib, {"type": "explain", "table": tid, "card": "AS"}, "explained") == (
            "bad_state"
        )
        kib.watch(tid)
        assert _refused(kib, {"type": "add_bot", "table": tid}, "bot_added") == "bad_state"
        kib.request({"type": "leave", "table": tid}, "left")  # stops watching
        assert _refused(kib, {"type": "leave", "table": tid}, "left") == "not_found"
        assert _refused(kib, {"type": "leave", "table": "no-such"}, "left") == "not_found"
        # the seated player may ask, but no game runs: explain and the deal round are refused
        assert _refused(ann, {"type": "explain", "table": tid, "card": "AS"}, "explained") == (
            "bad_state"
        )
        commit = {"type": "fair_commit", "table": tid, "hand_no": 1, "c": bytes(32)}
        assert _refused(ann, commit, "ok") == "bad_state"
        reveal = {"type": "fair_reveal", "table": tid, "hand_no": 1, "r": bytes(32)}
        assert _refused(ann, reveal, "ok") == "bad_state"
        # a seated player may add a bot (the one seat left); the table then waits for Ann
        assert ann.request({"type": "add_bot", "table": tid}, "bot_added")["seat"] == 1
        for client in (ann, kib):
            listed = client.request({"type": "list_tables"}, "tables")["tables"]
            assert [t["table"] for t in listed].count(tid) == 1
    finally:
        ann.close()
        kib.close()


def test_a_bad_type_is_refused_without_closing(host: dict[str, Any]) -> None:
    """2.4: a name outside the pattern is `unknown_type`, a missing `type` `bad_field`."""
    client = _client(host)
    try:
        assert _refused(client, {"type": "Ping!"}, "pong") == "unknown_type"
        rid = client.conn.send({"table": "x"})
        reply = client.conn.recv()
        while reply.get("re") != rid:
            reply = client.conn.recv()
        assert (reply["type"], reply["code"], reply["fatal"]) == ("error", "bad_field", False)
        client.sync()
    finally:
        client.close()


@pytest.mark.parametrize("versions", [[1], list(range(1, 41))], ids=["valid", "forty-versions"])
def test_a_second_hello_is_a_fatal_bad_state(host: dict[str, Any], versions: list[int]) -> None:
    """2.6: `hello` is allowed only in `await_hello`; the state is checked before the fields."""
    client = _client(host)
    hello = {"type": "hello", "protocol": "onecard", "versions": versions, "software": "x/1"}
    rid = client.conn.send(hello)
    reply = client.conn.recv()
    while reply.get("re") != rid:
        reply = client.conn.recv()
    assert (reply["type"], reply["code"], reply["fatal"]) == ("error", "bad_state", True)
    with pytest.raises((sc.ProtocolError, OSError)):  # the host closed after the error
        client.conn.recv()
    client.conn.sock.close()
