"""client/proofs.py and ``onecard proofs``: deal proofs kept in one folder per table, pruned by
count and age, listed and cleaned; ``play`` and ``join`` prune when they end. Before, every
``play --watch`` left about 14 files in the state directory and nothing ever removed them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from client.cli import cli
from client.proofs import list_tables, prune, table_dir

DAY = 86_400


def _table(root: Path, table: str, hands: int, *, age_days: float = 0, flat: bool = False) -> None:
    """``hands`` hands of proofs and records for ``table``, last touched ``age_days`` ago."""
    folder = root if flat else table_dir(root, table)
    folder.mkdir(parents=True, exist_ok=True)
    when = time.time() - age_days * DAY
    for hand in range(1, hands + 1):
        for name in (f"{table}-hand{hand}.json", f"{table}-hand{hand}-record.json"):
            (folder / name).write_text("{}")
            os.utime(folder / name, (when, when))


def test_tables_are_listed_newest_first_with_their_hands(tmp_path: Path) -> None:
    _table(tmp_path, "told", 3, age_days=2)
    _table(tmp_path, "tnew", 1)
    _table(tmp_path, "tflat", 2, age_days=1, flat=True)  # as 0.1.0 saved them
    (tmp_path / "notes.txt").write_text("mine")
    tables = list_tables(tmp_path)
    assert [(t.table, t.hands, len(t.files)) for t in tables] == [
        ("tnew", (1,), 2),
        ("tflat", (1, 2), 4),
        ("told", (1, 2, 3), 6),
    ]
    assert tables[2].line().startswith("told  3 hands (1-3)  6 files  0 kB  ")


def test_prune_keeps_the_newest_tables_and_none_too_old(tmp_path: Path) -> None:
    for i in range(5):
        _table(tmp_path, f"t{i}", 1, age_days=i)
    _table(tmp_path, "tflat", 1, age_days=40, flat=True)
    (tmp_path / "t3" / "mine.txt").write_text("not a proof")
    removed = prune(tmp_path, keep=3, days=30)
    assert [t.table for t in removed] == ["t3", "t4", "tflat"]
    assert [t.table for t in list_tables(tmp_path)] == ["t0", "t1", "t2"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t0", "t1", "t2", "t3"]
    assert [p.name for p in (tmp_path / "t3").iterdir()] == ["mine.txt"]  # left alone
    assert [t.table for t in prune(tmp_path, keep=50, days=1.5)] == ["t2"]
    assert [t.table for t in prune(tmp_path, keep=0, days=30)] == ["t0", "t1"]
    assert prune(tmp_path / "nothing", keep=0, days=0) == []


def test_a_table_id_is_one_folder() -> None:
    assert table_dir(Path("p"), "t1a2b3c") == Path("p/t1a2b3c")
    assert table_dir(Path("p"), "../../etc") == Path("p/etc")
    assert table_dir(Path("p"), "..") == Path("p/_")


def test_the_proofs_command_lists_and_cleans(tmp_path: Path) -> None:
    root = tmp_path / "proofs"
    _table(root, "ta", 2)
    _table(root, "tb", 1, age_days=45)
    state = ["--state-dir", str(tmp_path)]
    listed = CliRunner().invoke(cli, ["proofs", *state])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["ta", "tb"]
    assert lines[2] == f"2 tables with proofs, 0 kB, in {root}"

    cleaned = CliRunner().invoke(cli, ["proofs", "--clean", "--json", *state])
    assert cleaned.exit_code == 0, cleaned.output
    out = json.loads(cleaned.output)
    assert [t["table"] for t in out["removed"]] == ["tb"]
    assert [t["table"] for t in out["tables"]] == ["ta"]

    env = {"ONECARD_KEEP_PROOFS": "0"}
    emptied = CliRunner().invoke(cli, ["proofs", "--clean", *state], env=env)
    assert emptied.output.splitlines()[-1] == f"0 tables with proofs, 0 kB, in {root}"


def test_play_prunes_the_proofs_when_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONECARD_KNOWN_HOSTS", str(tmp_path / "known_hosts"))
    root = tmp_path / "proofs"
    for i in range(3):
        _table(root, f"tpast{i}", 1, age_days=i + 1)
    args = ["play", "--watch", "--delay", "0", "--state-dir", str(tmp_path), "--keep-proofs", "2"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    kept = list_tables(root)
    # the newest two; the game just watched (bots at every seat) left no proofs of its own
    assert [t.table for t in kept] == ["tpast0", "tpast1"]
