"""Tests of ``onecard verify`` through click's CliRunner, on the spec's record vectors."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.cli import cli
from client.verify_cmd import verify_command
from protocol.cards import DECK_54
from protocol.exit_codes import ExitCode
from protocol.fairness import HandDealer, SecretLedger
from protocol.hand_records import build_record, dump_record

VECTORS = Path(__file__).resolve().parents[2] / "spec" / "vectors"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "cardfair_generate", VECTORS.parents[1] / "tools" / "generate_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


#: validly signed records whose deck or ruleset is not the table's (PROTOCOL.md 7.3)
DECK_CASES = ("short_deck", "deck_without_jokers", "jokers_not_in_ruleset", "changed_options")


def _write_cases(tmp: Path) -> dict[str, Path]:
    out = {"valid": tmp / "valid.json"}
    out["valid"].write_text((VECTORS / "hand_record.json").read_text("utf-8"), "utf-8")
    cases = json.loads((VECTORS / "tampered_records.json").read_text("utf-8"))["cases"]
    for c in cases:
        if c["name"] in ("card_changed", "bad_signature", "position_skipped", *DECK_CASES):
            out[c["name"]] = tmp / f"{c['name']}.json"
            out[c["name"]].write_text(json.dumps(c["record"]), "utf-8")
    out["garbage"] = tmp / "garbage.json"
    out["garbage"].write_bytes(b"\x00\x01 not json at all")
    return out


def test_valid_record(tmp_path: Path) -> None:
    files = _write_cases(tmp_path)
    res = CliRunner().invoke(cli, ["verify", str(files["valid"])])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{files['valid']}: valid: table table-1 hand 1, 3 seats")
    assert "fingerprint 4e94-54aa-72b7-92fb" in lines[0]


def test_a_record_with_actions_says_they_are_not_covered(tmp_path: Path) -> None:
    """Before, "valid" for a record whose (unsigned) actions list was edited, without a word
    that the actions are not part of the proof."""
    record = json.loads((VECTORS / "hand_record.json").read_text("utf-8"))
    record["actions"] = [{"seat": 0, "action": {"type": "draw"}}]  # edited: still valid
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(record), "utf-8")
    res = CliRunner().invoke(cli, ["verify", str(path)])
    assert res.exit_code == 0, res.output
    assert ": valid: " in res.output
    assert res.output.rstrip().endswith(
        "its actions list is not signed, so not covered by this check"
    )


def test_tampered_records_name_first_failure(tmp_path: Path) -> None:
    f = _write_cases(tmp_path)
    args = [str(f[n]) for n in ("valid", "card_changed", "bad_signature", "position_skipped")]
    res = CliRunner().invoke(verify_command, args)
    assert res.exit_code == ExitCode.FAILED
    lines = res.output.splitlines()
    assert len(lines) == 4 and "Traceback" not in res.output
    assert ": valid: " in lines[0]
    assert lines[1].startswith(f"{f['card_changed']}: INVALID: message 49 (HAND_END): card at")
    assert "is QS, derived JR" in lines[1]
    assert lines[2].endswith("INVALID: message 8 (DRAW): signature on DRAW invalid")
    assert lines[3].endswith("draw at stream 0 position 7 skips: next unused position is 6")


def test_thorough_gives_the_same_verdicts(tmp_path: Path) -> None:
    f = _write_cases(tmp_path)
    args = [str(f[n]) for n in ("valid", "card_changed", "bad_signature", "position_skipped")]
    fast = CliRunner().invoke(verify_command, args)
    full = CliRunner().invoke(verify_command, ["--thorough", *args])
    assert full.exit_code == fast.exit_code == ExitCode.FAILED
    assert full.output == fast.output
    assert "--thorough" in CliRunner().invoke(verify_command, ["--help"]).output


def test_garbage_and_missing_files(tmp_path: Path) -> None:
    f = _write_cases(tmp_path)
    missing = tmp_path / "nope.json"
    res = CliRunner().invoke(verify_command, [str(f["garbage"]), str(missing), str(f["valid"])])
    assert res.exit_code == ExitCode.DATA
    assert res.exception is None or isinstance(res.exception, SystemExit)
    lines = res.output.splitlines()
    assert lines[0] == f"{f['garbage']}: unreadable: not JSON (Expecting value at line 1)"
    assert lines[1].startswith(f"{missing}: unreadable: cannot read: No such file")
    assert ": valid: " in lines[2]


def test_directory_is_unreadable_not_a_crash(tmp_path: Path) -> None:
    res = CliRunner().invoke(verify_command, [str(tmp_path)])
    assert res.exit_code == ExitCode.DATA
    assert res.output.startswith(f"{tmp_path}: unreadable: cannot read")


def test_json_output(tmp_path: Path) -> None:
    f = _write_cases(tmp_path)
    res = CliRunner().invoke(verify_command, ["--json", str(f["valid"]), str(f["card_changed"])])
    assert res.exit_code == ExitCode.FAILED
    out = json.loads(res.output)
    assert [r["status"] for r in out] == ["valid", "invalid"]
    assert out[0]["fingerprint"] == "4e94-54aa-72b7-92fb" and out[0]["hand_no"] == 1
    assert out[1]["failure"] == "CardMismatchError" and out[1]["message_index"] == 49


def _other_hand_same_secret(path: Path) -> None:
    """A second hand (hand 2) dealt with the secret of the vector hand: S reused."""
    gen = _generator()
    sk = Ed25519PrivateKey.from_private_bytes(gen.HOST_SEED)
    d = HandDealer(
        signing_key=sk,
        table_id="table-1",
        hand_no=2,
        ruleset_id="one-card",
        deck=DECK_54,
        pids=gen.PIDS,
        secret=gen.SECRET,
        ledger=SecretLedger(),
    )
    d.void("host restart")
    path.write_text(dump_record(build_record(d, game="one-card")), "utf-8")


def test_reused_secret_across_files_is_invalid(tmp_path: Path) -> None:
    f = _write_cases(tmp_path)
    copy = tmp_path / "copy.json"
    copy.write_text(f["valid"].read_text("utf-8"), "utf-8")
    other = tmp_path / "other.json"
    _other_hand_same_secret(other)
    res = CliRunner().invoke(verify_command, [str(f["valid"]), str(copy), str(other)])
    assert res.exit_code == ExitCode.FAILED
    lines = res.output.splitlines()
    assert ": valid: " in lines[1]  # the same hand twice is not a reuse
    assert lines[2] == f"{other}: INVALID: host secret S was already used by {f['valid']}"


def test_needs_a_file() -> None:
    res = CliRunner().invoke(verify_command, [])
    assert res.exit_code == 2 and "Missing argument" in res.output


def test_a_deck_or_ruleset_not_the_tables_is_invalid(tmp_path: Path) -> None:
    """Validly signed records dealt from the wrong deck, or signed under other options."""
    f = _write_cases(tmp_path)
    res = CliRunner().invoke(verify_command, ["--json", *(str(f[n]) for n in DECK_CASES)])
    assert res.exit_code == ExitCode.FAILED
    verdicts = json.loads(res.output)
    assert [v["failure"] for v in verdicts] == ["DeckError"] * 3 + ["RulesetError"]
    assert all(v["status"] == "invalid" for v in verdicts)
    assert "deals 46 cards without 2S 3S 2H 3H" in verdicts[0]["message"]
    assert "not the 52-card deck of ruleset 'black-jack" in verdicts[2]["message"]
    plain = CliRunner().invoke(verify_command, [str(f["short_deck"])]).output
    assert ": INVALID: message 0 (HAND_COMMIT): HAND_COMMIT deals 46 cards" in plain


def test_a_private_hand_record_verifies_and_a_tampered_one_names_its_failure(
    tmp_path: Path,
) -> None:
    data = json.loads((VECTORS / "private_hand.json").read_text())
    good, bad = tmp_path / "private.json", tmp_path / "private-bad.json"
    good.write_text(json.dumps(data["record"]))
    case = next(c for c in data["tampered"] if c["name"] == "stage_swapped")
    bad.write_text(json.dumps(case["record"]))
    res = CliRunner().invoke(cli, ["verify", str(good)])
    assert res.exit_code == 0, res.output
    assert "private: 2 masked rounds audited" in res.output
    res = CliRunner().invoke(cli, ["verify", str(bad)])
    assert res.exit_code != 0
    assert "INVALID" in res.output and "pass of seat 1" in res.output
