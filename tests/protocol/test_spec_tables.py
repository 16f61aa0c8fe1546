"""Tests for protocol/spec_tables.py and ``python -m protocol``: the spec matches the code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.__main__ import main
from protocol.errors import ErrorCode
from protocol.framing import encode_frame
from protocol.messages import field_specs
from protocol.registry import MESSAGE_TYPES
from protocol.spec_tables import GENERATED, SPEC_PATH, error_table, render_spec, stale_blocks

REGENERATE = "spec/PROTOCOL.md is stale: run `python -m protocol --write-spec`"


def spec_text() -> str:
    return SPEC_PATH.read_text(encoding="utf-8")


def test_spec_tables_match_the_code() -> None:
    assert stale_blocks(spec_text()) == [], REGENERATE


def test_spec_message_table_lists_exactly_the_registry() -> None:
    text = spec_text()
    section = text[text.index("## 9. Message table") :].split("\n## ", 1)[0]  # up to section 10
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert sorted(row.split("`")[1] for row in rows) == sorted(MESSAGE_TYPES), REGENERATE


def test_spec_frame_examples_are_the_real_encoding() -> None:
    text = " ".join(spec_text().split())  # the long example wraps over lines
    assert encode_frame({"type": "ping", "id": 7}).hex(" ") in text
    hello = {
        "type": "hello",
        "id": 1,
        "protocol": "onecard",
        "versions": [1],
        "software": "onecard-cli/0.1.0",
    }
    assert encode_frame(hello).hex(" ") in text


def test_render_spec_replaces_only_generated_blocks() -> None:
    text = (
        "intro\n<!-- generated: errors; note -->\nold\n<!-- end generated: errors -->\n"
        "<!-- generated: other -->\nkeep\n<!-- end generated: other -->\noutro\n"
    )
    rendered = render_spec(text)
    assert rendered.startswith("intro\n<!-- generated: errors; note -->\n| Code |")
    assert "old" not in rendered
    assert "keep" in rendered
    assert rendered.endswith("outro\n")
    assert render_spec(rendered) == rendered
    assert stale_blocks(rendered) == ["limits", "messages"]


def test_error_table_lists_every_code_with_its_fatality() -> None:
    table = error_table()
    for code in ErrorCode:
        fatal = "yes" if code.fatal else "no"
        assert f"| `{code.value}` | {fatal} | " in table
    assert "| `malformed` | yes | The bytes are not a valid frame" in table


def test_cli_checks_and_writes_the_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "PROTOCOL.md"
    blocks = "".join(
        f"<!-- generated: {name} -->\n<!-- end generated: {name} -->\n" for name in GENERATED
    )
    path.write_text(blocks, encoding="utf-8")
    assert main(["--check-spec", "--spec", str(path)]) == 1
    assert "--write-spec" in capsys.readouterr().out
    assert main(["--write-spec", "--spec", str(path)]) == 0
    assert main(["--check-spec", "--spec", str(path)]) == 0


def test_module_prints_the_message_table() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "protocol", "--spec-table"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.startswith("| Type | Direction |")
    assert "| `hello` | client→host |" in result.stdout


#: "`field` of `a`, `b` and `c`" or "`field` (`a`, `b`)" in the glossary
_FIELD_OF = r"`([a-z_]+)` (?:of|\() *((?:`[a-z_]+`(?:, | and )?)+)"


def glossary_wire_names() -> list[tuple[str, str]]:
    """(message type, field) pairs the glossary (section 11) names in its wire-name column."""
    text = spec_text()
    section = text[text.index("## 11. Glossary") :]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| **")]
    pairs: list[tuple[str, str]] = []
    for cells in rows:
        wire = cells[1]
        pairs += re.findall(r"`([a-z_]+)\.([a-z_]+)`", wire)
        for field, types in re.findall(
            r"`([a-z_]+)` (?:of|\() *((?:`[a-z_]+`(?:, | and )?)+)", wire
        ):
            pairs += [(type_name, field) for type_name in re.findall(r"`([a-z_]+)`", types)]
    return pairs


def test_the_glossary_names_real_fields_of_real_messages() -> None:
    pairs = glossary_wire_names()
    assert len(pairs) >= 25  # the parser still reads the table
    for type_name, field in pairs:
        if type_name == "view":  # the game's view map: its keys are spec/RULES.md's
            continue
        assert type_name in MESSAGE_TYPES, (type_name, field)
        assert field in field_specs(MESSAGE_TYPES[type_name]), (type_name, field)
