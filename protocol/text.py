r"""Text from the other side of a connection, made safe to show on a terminal or in a log.

How it works: every string a peer sends (a name, a chat line, an error message, an event field,
a hand record's field) may hold characters that a terminal acts on instead of showing: ESC
starts a sequence that sets the window title, changes colours or erases a line; C1 controls
(``\x9b`` is CSI on some terminals) and DEL do the same; bidi overrides (``\u202e``) and other
format characters reorder or hide the text around them; a newline forges a line of its own.
:func:`safe_text` shows each such character as an escape (``\x1b``, ``\u202e``, ``\n``) and
leaves everything else as it is, so names in any script stay readable. The rule is the
protocol's own ``printable`` (``str.isprintable``): a character is shown as it is exactly when
a ``printable`` field may hold it, i.e. no control, format, surrogate, private-use, unassigned
or separator character other than the space. The result is for people and is not reversible
(a backslash is left alone). Every front end and every log line that shows peer text passes it
through here first.

:func:`safe_json` applies the same rule to a JSON document written with
``ensure_ascii=False``: ``json`` escapes C0 controls in strings itself but leaves DEL, C1
and format characters raw; they become ``\u`` escapes, so the document still parses to the
same values (a raw tab, newline or carriage return can only be whitespace between tokens
there, and stays).
"""

from __future__ import annotations

__all__ = ["safe_json", "safe_text"]

#: the escapes Python itself writes for these controls (JSON whitespace, too)
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in _SHORT:
        return _SHORT[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def safe_text(text: str) -> str:
    r"""``text`` with every character that is not printable shown as an escape.

    >>> print(safe_text("\x1b]0;pwned\x07Bob\x1b[2K"))
    \x1b]0;pwned\x07Bob\x1b[2K
    >>> print(safe_text("abc\u202edef\x9b\x7f\nX\U000e0041\t"))
    abc\u202edef\x9b\x7f\nX\U000e0041\t
    >>> safe_text("Zoë 李 ♠ [red]x")  # any script, symbols and rich markup: as they are
    'Zoë 李 ♠ [red]x'
    """
    if text.isprintable():  # the common case, at C speed
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON spells code points above U+FFFF
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def safe_json(document: str) -> str:
    r"""A JSON document (``json.dumps(..., ensure_ascii=False)``) with every character that is
    not printable, whitespace between tokens aside, written as a ``\u`` escape: it parses to
    the same values.

    >>> import json
    >>> doc = json.dumps({"name": "Bob\u202e\x9b\x7f", "city": "Zoë"}, ensure_ascii=False)
    >>> print(safe_json(doc))
    {"name": "Bob\u202e\u009b\u007f", "city": "Zoë"}
    >>> json.loads(safe_json(doc)) == json.loads(doc)
    True
    >>> print(safe_json(json.dumps(["\U000e0041"], indent=1, ensure_ascii=False)))
    [
     "\udb40\udc41"
    ]
    """
    if document.isprintable():
        return document
    return "".join(ch if ch.isprintable() or ch in _SHORT else _json_escape(ch) for ch in document)
