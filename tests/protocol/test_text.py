"""protocol/text.py: what a terminal would act on is shown escaped, everything else as it is;
JSON keeps its values exactly."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.text import safe_json, safe_text

#: C0 (ESC among them), DEL and C1 (0x9b is CSI on some terminals)
CONTROLS = [chr(c) for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))]
#: bidi embeddings, overrides, isolates and marks; zero-width and other format characters;
#: line and paragraph separators; a tag character
FORMATS = [
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
    "\u200e",
    "\u200f",
    "\u061c",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u2028",
    "\u2029",
    "\U000e0001",
]


@pytest.mark.parametrize("ch", CONTROLS + FORMATS, ids=lambda ch: f"U+{ord(ch):04X}")
def test_every_control_and_format_character_is_shown_escaped(ch: str) -> None:
    shown = safe_text(f"a{ch}b")
    assert ch not in shown and shown.isprintable()
    assert shown.startswith("a\\") and shown.endswith("b")
    assert shown[1:-1] == ascii(ch)[1:-1]  # Python's own escape: \x1b, \u202e, \n


def test_escapes_read_as_python_writes_them() -> None:
    assert safe_text("\x1b]0;t\x07") == "\\x1b]0;t\\x07"
    assert safe_text("\t\n\r\x00\x7f\x9b") == "\\t\\n\\r\\x00\\x7f\\x9b"
    assert safe_text("\u202e\U000e0041") == "\\u202e\\U000e0041"


@pytest.mark.parametrize(
    "text",
    ["Ann", "Zoë", "李小龙", "Ωμέγα", "7♠ 10♥", "🂡 🃏", "[red]x[/red]", "a\\x1b", "", " spaced "],
)
def test_printable_text_is_left_as_it_is(text: str) -> None:
    assert safe_text(text) == text


def test_a_lone_surrogate_is_escaped_rather_than_left_to_fail_an_encoder() -> None:
    assert safe_text("a\ud800") == "a\\ud800"


@given(st.text())
def test_the_result_is_always_printable_and_escaping_twice_changes_nothing(text: str) -> None:
    shown = safe_text(text)
    assert shown.isprintable()
    assert safe_text(shown) == shown


@given(st.text())
def test_every_printable_character_keeps_its_place(text: str) -> None:
    shown = safe_text(text)
    kept = [ch for ch in text if ch.isprintable()]
    pos = 0
    for ch in kept:  # in order, each where the text had it (escapes in between)
        pos = shown.index(ch, pos) + 1
    assert len(shown) >= len(text)


@pytest.fixture(scope="module")
def shown_raw() -> bytes:
    """For every code point, whether ``safe_text`` shows it as it is (1) or escapes it (0):
    computed once for the two tests that hold it against a rule."""
    return bytes(safe_text(chr(code)) == chr(code) for code in range(0x110000))


def test_the_rule_is_the_protocols_printable(shown_raw: bytes) -> None:
    """Shown as it is exactly when a ``printable`` field may hold it (``str.isprintable``):
    control, format, surrogate, private-use, unassigned and separators but the space."""
    for code in range(0x110000):
        ch = chr(code)
        raw = bool(shown_raw[code])
        assert raw == ch.isprintable(), hex(code)
        if not raw:
            assert unicodedata.category(ch)[0] in "CZ", hex(code)


SPEC = Path(__file__).resolve().parents[2] / "spec" / "PROTOCOL.md"


def test_printable_is_the_rule_protocol_md_writes_out(shown_raw: bytes) -> None:
    """PROTOCOL.md section 1 (issue 24.10) gives the rule as general categories and a Unicode
    version, not as a Python function: the reference must be exactly that rule, on a
    database at least that recent."""
    text = " ".join(SPEC.read_text(encoding="utf-8").split())
    unprintable = {"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"}
    for category in unprintable:
        assert f"`{category}`" in text
    assert "except U+0020 SPACE, which is printable" in text
    assert "version 14.0 or later" in text
    assert tuple(map(int, unicodedata.unidata_version.split(".")[:2])) >= (14, 0)
    for code in range(0x110000):
        ch = chr(code)
        ruled = code == 0x20 or unicodedata.category(ch) not in unprintable
        assert bool(shown_raw[code]) == ruled, hex(code)


def test_protocol_md_points_at_nothing_a_stranger_cannot_read() -> None:
    """Issue 24.10: the rules these pointers stood for are written out in the spec; the
    design note is named as unpublished, never as a source."""
    text = " ".join(SPEC.read_text(encoding="utf-8").split())
    for pointer in ("protocol/text.py", "note_shown", "protocol/cards.py", "docs/BOTS.md"):
        assert pointer not in text, pointer
    assert "`FAIRNESS.md`" not in text and "not published with this specification" in text
    assert "Nothing outside `spec/` is needed to implement this document" in text


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@given(JSON_VALUES, st.sampled_from([None, 1]))
def test_json_keeps_the_exact_values_and_only_whitespace_between_tokens(
    value: object, indent: int | None
) -> None:
    document = json.dumps(value, ensure_ascii=False, indent=indent)
    safe = safe_json(document)
    assert json.loads(safe) == value
    assert all(ch.isprintable() or ch in "\n" for ch in safe)


def test_json_escapes_what_json_dumps_leaves_raw() -> None:
    document = json.dumps({"n": "\x7f\x9b\u202e\u2066\U000e0041 ok"}, ensure_ascii=False)
    assert "\x9b" in document and "\u202e" in document  # what json.dumps leaves
    assert safe_json(document) == '{"n": "\\u007f\\u009b\\u202e\\u2066\\udb40\\udc41 ok"}'
    assert safe_json('{"n": "Zoë ♠"}') == '{"n": "Zoë ♠"}'
