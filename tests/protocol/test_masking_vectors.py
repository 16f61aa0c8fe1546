"""``spec/vectors/private.json`` (PROTOCOL.md 10.10): up to date with its generator, every value
re-derived here from section 10's formulas with hashlib, hmac and libsodium alone (not through
protocol.masking), and every tampered case failing with its kind in the reference."""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from nacl import bindings as sodium

from protocol import masking
from protocol.cardfair import FairnessError

VECTORS = Path(__file__).resolve().parents[2] / "spec" / "vectors"
L = 2**252 + 27742317777372353535851937790883648493


def _vectors() -> dict[str, Any]:
    obj = json.loads((VECTORS / "private.json").read_text(encoding="utf-8"))
    assert isinstance(obj, dict)
    return obj


V = _vectors()
CTX = bytes.fromhex(V["context"]["ctx"])


def enc(*fields: bytes | str) -> bytes:
    out = b""
    for f in fields:
        b = f.encode() if isinstance(f, str) else f
        out += len(b).to_bytes(4, "big") + b
    return out


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def lab(name: str) -> bytes:
    return ("cardmask/v1/" + name).encode()


def scalar(m: bytes, *fields: bytes) -> bytes:
    wide = int.from_bytes(hmac.new(m, enc(*fields), hashlib.sha512).digest(), "little")
    return (wide % L).to_bytes(32, "little")


def fisher_yates(key: bytes, stream: int, n: int) -> list[int]:
    """7.5's shuffle of [0..n-1]: words from HMAC(key, enc(L"stream", u32(s), u64(j)))."""
    words: list[int] = []
    block = 0

    def word() -> int:
        nonlocal block
        if not words:
            msg = enc(b"cardfair/v1/stream", u32(stream), block.to_bytes(8, "big"))
            h = hmac.new(key, msg, hashlib.sha256).digest()
            words.extend(int.from_bytes(h[i : i + 4], "big") for i in range(28, -1, -4))
            block += 1
        return words.pop()

    a = list(range(n))
    for i in range(n - 1, 0, -1):
        bound = i + 1
        lo = 2**32 % bound
        while (w := word()) < lo:
            pass
        j = w % bound
        a[i], a[j] = a[j], a[i]
    return a


def points(hexes: list[str]) -> list[bytes]:
    return [bytes.fromhex(h) for h in hexes]


def test_the_file_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location(
        "private_generate", VECTORS.parents[1] / "tools" / "generate_private_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert (VECTORS / "private.json").read_text(encoding="utf-8") == mod.build_text()


@pytest.mark.parametrize("name", ["deal", "reshuffle"])
def test_card_points_follow_the_formula(name: str) -> None:
    rnd = V[name]
    for j, (code, hexed) in enumerate(zip(rnd["cards"], rnd["card_points"], strict=True)):
        h = hashlib.sha256(enc(lab("card"), CTX, u32(rnd["stream"]), u32(j), code)).digest()
        assert sodium.crypto_core_ed25519_from_uniform(h).hex() == hexed


def test_each_seats_keys_follow_the_formulas() -> None:
    for s in V["seats"]:
        m, seat = bytes.fromhex(s["secret"]), u32(s["seat"])
        commit = hashlib.sha256(enc(lab("mask-commit"), CTX, seat, m)).hexdigest()
        assert commit == s["commitment"]
        assert scalar(m, lab("deck-key"), CTX, seat, u32(0)).hex() == s["deck_key"]
        assert scalar(m, lab("deck-key"), CTX, seat, u32(1)).hex() == s["deck_key_stream1"]
        for pos, key in enumerate(s["position_keys"]):
            assert scalar(m, lab("position-key"), CTX, seat, u32(0), u32(pos)).hex() == key
        pkey = hmac.new(m, enc(lab("permutation"), CTX, seat), hashlib.sha256).digest()
        assert pkey.hex() == s["permutation_key"]
        assert fisher_yates(pkey, 0, 54) == s["permutation"]
        assert fisher_yates(pkey, 1, len(V["reshuffle"]["cards"])) == s["permutation_stream1"]
        seed = hmac.new(m, enc(lab("box-key"), CTX, seat), hashlib.sha256).digest()
        pk, sk = sodium.crypto_box_seed_keypair(seed)
        assert (pk.hex(), sk.hex()) == (s["box_public_key"], s["box_secret_key"])


@pytest.mark.parametrize("name", ["deal", "reshuffle"])
def test_every_pass_and_the_stock_follow_the_formulas(name: str) -> None:
    rnd = V[name]
    stream, n = rnd["stream"], len(rnd["cards"])
    deck = points(rnd["card_points"])
    order = list(range(n))
    for s, stage in zip(V["seats"], rnd["masked"], strict=True):
        key = bytes.fromhex(s["deck_key" if stream == 0 else "deck_key_stream1"])
        perm = s["permutation" if stream == 0 else "permutation_stream1"]
        deck = [sodium.crypto_scalarmult_ed25519_noclamp(key, deck[j]) for j in perm]
        order = [order[j] for j in perm]
        assert deck == points(stage)
    for s, stage in zip(V["seats"], rnd["rekeyed"], strict=True):
        m, seat = bytes.fromhex(s["secret"]), u32(s["seat"])
        inv = sodium.crypto_core_ed25519_scalar_invert(
            scalar(m, lab("deck-key"), CTX, seat, u32(stream))
        )
        deck = [
            sodium.crypto_scalarmult_ed25519_noclamp(
                sodium.crypto_core_ed25519_scalar_mul(
                    scalar(m, lab("position-key"), CTX, seat, u32(stream), u32(i)), inv
                ),
                p,
            )
            for i, p in enumerate(deck)
        ]
        assert deck == points(stage)
    assert [rnd["cards"][j] for j in order] == rnd["stock"]


def test_opened_positions_and_the_sealed_key() -> None:
    card_pts = points(V["deal"]["card_points"])
    for case in V["opened"]:
        total = (1).to_bytes(32, "little")
        for k in points(case["keys"]):
            total = sodium.crypto_core_ed25519_scalar_mul(total, k)
        inv = sodium.crypto_core_ed25519_scalar_invert(total)
        pt = sodium.crypto_scalarmult_ed25519_noclamp(inv, bytes.fromhex(case["point"]))
        assert pt.hex() == case["card_point"]
        assert V["deal"]["cards"][card_pts.index(pt)] == case["card"]
        assert V["deal"]["stock"][case["pos"]] == case["card"]
    sealed = V["sealed"]
    keys = sealed["recipient_keys"]
    plain = sodium.crypto_box_seal_open(
        bytes.fromhex(sealed["sealed"]),
        bytes.fromhex(keys["public"]),
        bytes.fromhex(keys["secret"]),
    )
    r = sealed["route"]
    key = bytes.fromhex(sealed["key"])
    assert plain == enc(
        lab("sealed-key"), CTX, u32(r["stream"]), u32(r["pos"]), u32(r["from"]), u32(r["to"]), key
    )
    assert plain.hex() == sealed["plaintext"]
    assert sealed["key"] == V["seats"][r["from"]]["position_keys"][r["pos"]]


def _run(case: dict[str, Any]) -> None:
    if case["op"] == "mask":
        masking.mask_pass(
            points(case["points"]), bytes.fromhex(case["key"]), tuple(case["permutation"])
        )
    elif case["op"] == "unmask":
        masking.unmask_card(
            bytes.fromhex(case["point"]), points(case["keys"]), points(V["deal"]["card_points"])
        )
    elif case["op"] == "open":
        r = case["route"]
        route = masking.KeyRoute(CTX, r["stream"], r["pos"], r["from"], r["to"])
        keys = case["recipient_keys"]
        masking.open_key(
            route,
            bytes.fromhex(case["sealed"]),
            bytes.fromhex(keys["public"]),
            bytes.fromhex(keys["secret"]),
        )
    else:
        _run_audit(case["change"])


def _run_audit(change: dict[str, Any]) -> None:
    masked = [points(s) for s in V["deal"]["masked"]]
    rekeyed = [points(s) for s in V["deal"]["rekeyed"]]
    secrets = [bytes.fromhex(s["secret"]) for s in V["seats"]]
    if "secret" in change:
        secrets[change["secret"]["seat"]] = bytes.fromhex(change["secret"]["value"])
    else:
        stage = (masked if change["pass"] == "masked" else rekeyed)[change["seat"]]
        if "swap" in change:
            a, b = change["swap"]
            stage[a], stage[b] = stage[b], stage[a]
        else:
            stage[change["position"]] = bytes.fromhex(change["point"])
    masking.verify_round(
        CTX,
        0,
        V["deal"]["cards"],
        seat_secrets=secrets,
        commitments=[bytes.fromhex(s["commitment"]) for s in V["seats"]],
        masked=masked,
        rekeyed=rekeyed,
    )


@pytest.mark.parametrize("case", V["tampered"], ids=lambda c: c["name"])
def test_each_tampered_case_fails_with_its_kind(case: dict[str, Any]) -> None:
    with pytest.raises(FairnessError) as info:
        _run(case)
    assert type(info.value).__name__ == case["failure"]


def test_the_untampered_inputs_pass() -> None:
    """The tampered cases fail for their change alone: the same operations on the real
    values succeed."""
    stream = V["deal"]
    stock = masking.verify_round(
        CTX,
        0,
        stream["cards"],
        seat_secrets=[bytes.fromhex(s["secret"]) for s in V["seats"]],
        commitments=[bytes.fromhex(s["commitment"]) for s in V["seats"]],
        masked=[points(s) for s in stream["masked"]],
        rekeyed=[points(s) for s in stream["rekeyed"]],
    )
    assert list(stock) == stream["stock"]
    keys = V["sealed"]["recipient_keys"]
    r = V["sealed"]["route"]
    key = masking.open_key(
        masking.KeyRoute(CTX, r["stream"], r["pos"], r["from"], r["to"]),
        bytes.fromhex(V["sealed"]["sealed"]),
        bytes.fromhex(keys["public"]),
        bytes.fromhex(keys["secret"]),
    )
    assert key.hex() == V["sealed"]["key"]
    kinds = {c["failure"] for c in V["tampered"]}
    assert kinds == {
        "PointError",
        "ScalarError",
        "UnmaskError",
        "SealError",
        "StageError",
        "CommitmentError",
    }


def test_two_packs_follow_the_formulas() -> None:
    """Six seats, two packs: each card ID twice in the deck, each copy its own point, and a
    round over recycled copies whose passes and stock follow the formulas."""
    tp = V["two_packs"]
    c = tp["context"]
    deck = tp["deck"]["cards"]
    digest = hashlib.sha256(enc(b"cardfair/v1/deck", u32(len(deck)), *deck)).digest()
    fields = [c["table_id"], c["hand_no"].to_bytes(8, "big"), c["ruleset_id"], digest]
    ctx = hashlib.sha256(
        enc(b"cardfair/v1/ctx", *fields, u32(len(c["pids"])), *c["pids"], bytes(32))
    ).digest()
    assert ctx.hex() == c["ctx"] and len(deck) == 108 and deck.count("AS") == 2
    assert len(set(tp["deck"]["card_points"])) == len(deck)
    for rnd in (tp["deck"], tp["reshuffle"]):
        for j, (code, hexed) in enumerate(zip(rnd["cards"], rnd["card_points"], strict=True)):
            h = hashlib.sha256(enc(lab("card"), ctx, u32(rnd["stream"]), u32(j), code)).digest()
            assert sodium.crypto_core_ed25519_from_uniform(h).hex() == hexed
    rnd = tp["reshuffle"]
    secrets = [bytes.fromhex(m) for m in tp["secrets"]]
    for s, (m, commit) in enumerate(zip(secrets, tp["commitments"], strict=True)):
        assert hashlib.sha256(enc(lab("mask-commit"), ctx, u32(s), m)).hexdigest() == commit
    stream, n = rnd["stream"], len(rnd["cards"])
    stage, order = points(rnd["card_points"]), list(range(n))
    for s, (m, relayed) in enumerate(zip(secrets, rnd["masked"], strict=True)):
        key = scalar(m, lab("deck-key"), ctx, u32(s), u32(stream))
        pkey = hmac.new(m, enc(lab("permutation"), ctx, u32(s)), hashlib.sha256).digest()
        perm = fisher_yates(pkey, stream, n)
        stage = [sodium.crypto_scalarmult_ed25519_noclamp(key, stage[j]) for j in perm]
        order = [order[j] for j in perm]
        assert stage == points(relayed)
    for s, (m, relayed) in enumerate(zip(secrets, rnd["rekeyed"], strict=True)):
        inv = sodium.crypto_core_ed25519_scalar_invert(
            scalar(m, lab("deck-key"), ctx, u32(s), u32(stream))
        )
        stage = [
            sodium.crypto_scalarmult_ed25519_noclamp(
                sodium.crypto_core_ed25519_scalar_mul(
                    scalar(m, lab("position-key"), ctx, u32(s), u32(stream), u32(i)), inv
                ),
                p,
            )
            for i, p in enumerate(stage)
        ]
        assert stage == points(relayed)
    assert [rnd["cards"][j] for j in order] == rnd["stock"]
