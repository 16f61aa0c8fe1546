"""The scan of issue 29: does anything the host held or emitted reveal a human seat's hidden card
before that card was played or its hand ended?

How it works (pure: no I/O, no trio; the harness that fills it is ``hosttap.py``):

* An :class:`Item` is one thing the host held or emitted, stamped with the harness's clock
  (``at``, one shared counter every tap ticks): a decoded frame it sent or received, the raw
  bytes of a send, a journal row, the new bytes of a database file, a log line, a hand record.
  ``value`` is a decoded structure (``raw`` False) or bytes/text (``raw`` True).
* A :class:`Secret` is one *holding* of a hidden card by a human seat in one hand: the seat's
  client got it face down (a ``card`` message to its seat). It is hidden from ``start`` (the
  hand's start, or the last public message naming it before the host dealt it: a play, a
  reshuffle sending it back into the stock) until ``public``: its client put it down (an
  action naming it in ``card``/``cards``), a public message showed it (a One Card bankruptcy),
  or the hand ended for that seat. :class:`Timeline` builds them.
* :func:`mentions` finds the card codes an item holds. Structurally (``raw`` False): every
  value, at any depth, that *is* a card code (``"10H"``, not ``"x10H"``), plus bytes and hex
  strings that decode as msgpack (a signed ``fair`` body, a record's ``body`` hex), walked the
  same way; ints under a card-named key (``card``, ``cards``, ``hand``) are canonical indices.
  By encodings (``raw`` True): text by word-bounded code; bytes by the msgpack string of a code
  (``\\xa2`` ``7H``, ``\\xa3`` ``10H``) and by the code as bounded ASCII. A raw hit whose card the
  item's structural twin (``confirm``) does not hold may be random bytes (a signature, a key):
  it is kept, marked ``certain=False`` and counted apart (:attr:`Report.uncertain`).
* :func:`scan` pairs each mention with every secret of that card whose hidden window holds the
  item's ``at``: a :class:`Finding` names the item, the seat, the card and when.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack

from protocol.cards import ALL_CARDS

#: every card code a deck can hold (the wire's canonical form)
CODES: frozenset[str] = frozenset(c.code for c in ALL_CARDS)
#: canonical index -> code
BY_INDEX: tuple[str, ...] = tuple(c.code for c in ALL_CARDS)
#: map keys whose int values are read as canonical card indices
CARD_KEYS = frozenset({"card", "cards", "hand", "kept"})
#: map keys whose cards are public wherever they are: ``deck`` is the canonical deck every
#: ``hand_commit`` and record lists, the same for every hand (all the cards, nobody's); a One
#: Card view's ``follow`` names the cards the rules let follow the top card (anyone's); a ONE
#: view's ``last_trick``, ``last_hand`` and ``centre`` (its ``card`` once turned up) are cards
#: face up, which the view still shows while the next hand, with the same 25 cards, is dealt;
#: a private table's view's ``legal_sets`` lists the plays the rules allow over the public state,
#: every card that may follow whoever holds it (the host does not know the hand: 10.13); a
#: Black Jack view's ``discards`` are the pile played face up, which on a private table the view
#: still lists after the ``reshuffle`` that recycles them, until that round's masking passes are
#: in (the cards are then in a masked stock nobody holds yet)
PUBLIC_KEYS = frozenset(
    {"deck", "follow", "last_trick", "last_hand", "centre", "legal_sets", "discards"}
)
#: fields of signed ``cardfair/v1`` bodies whose cards are public (by the message's type)
SIGNED_PUBLIC = {"reshuffle": frozenset({"cards", "kept"})}
#: fields of an action whose cards the action puts down (a Black Jack ``declare`` only names)
PUT_DOWN = ("card", "cards")

#: a card code, by its grammar (rank then suit; the two jokers)
_CODE = r"(?:10|[2-9AJQK])[SHDC]|J[BR]"
#: a code in text: not inside a longer word (``7H`` in ``x7H`` or ``7HX`` does not count)
TEXT_CODE = re.compile(rf"(?<![A-Za-z0-9])({_CODE})(?![A-Za-z0-9])")
#: a code in bytes: as ASCII between non-alphanumerics, or as a msgpack fixstr (header byte)
BYTES_CODE = re.compile(rf"(?<![A-Za-z0-9])({_CODE})(?![A-Za-z0-9])".encode())
MSGPACK_CODE = re.compile(rb"\xa2(?:[2-9AJQK][SHDC]|J[BR])|\xa310[SHDC]")
#: adjacent msgpack code strings in canonical order, at least this many: the public ``deck``
#: list of ``hand_commit`` (every card of the deck, the same every hand), not anyone's cards
DECK_RUN = 20
_HEX = re.compile(r"(?:[0-9a-f]{2}){2,}")


class Source(enum.StrEnum):
    """Where an item came from."""

    SENT = "sent"  #: a frame the host sent to a connection, decoded
    SENT_BYTES = "sent_bytes"  #: the bytes of one send on a connection
    RECEIVED = "received"  #: a frame the host received on a connection, decoded
    KEPT = "kept"  #: what a connection object holds (backlog, queued batches, buffers)
    JOURNAL = "journal"  #: a row the table appended to its journal
    DATABASE = "database"  #: new bytes of a file of the database (db, -wal)
    LOG = "log"  #: one log line of the host, any level
    RECORD = "record"  #: a hand record as the table handed it to the store
    RECORD_FILE = "record_file"  #: a hand record file as written (JSON)
    SERVED_RECORD = "served_record"  #: a hand record as ``get_record`` served it (JSON)


@dataclass(frozen=True, slots=True)
class Item:
    source: Source
    where: str  #: which connection, row, file, logger
    at: int  #: the harness clock when the host held or emitted it
    value: Any
    raw: bool = False
    #: raw items: the codes its decoded twin holds (None: no twin, every hit is certain)
    confirm: frozenset[str] | None = None
    #: raw items: the decoded values of the same bytes (their codes are added to ``confirm``)
    twins: tuple[Any, ...] = ()
    #: raw items: decoded values of the same bytes that are copies of public messages (the
    #: cards they name are no finding)
    copies: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class Mention:
    card: str
    how: str  #: the path to the value, or the encoding that matched
    certain: bool = True
    #: a public list names it (the deck, a reshuffle's cards): it says nothing of any hand
    public: bool = False


@dataclass(frozen=True, slots=True)
class Secret:
    """A human seat's card hidden from ``start`` until ``public`` (exclusive)."""

    seat: int
    name: str
    hand_no: int
    card: str
    start: int
    public: int
    #: what made it public: "put down" (its client played it), "shown" (a public message
    #: showed it), "hand end"
    why: str = "hand end"

    def hidden_at(self, at: int) -> bool:
        """Strictly after it went out of sight (the item at ``start`` made it so: a reshuffle),
        before it was public."""
        return self.start < at < self.public


@dataclass(frozen=True, slots=True)
class Finding:
    source: Source
    where: str
    at: int
    seat: int
    name: str
    hand_no: int
    card: str
    how: str
    certain: bool

    def line(self) -> str:
        doubt = "" if self.certain else " (uncertain: may be random bytes)"
        return (
            f"{self.source} {self.where} at {self.at}: seat {self.seat} ({self.name}) hand "
            f"{self.hand_no} card {self.card} via {self.how}{doubt}"
        )


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    items: Counter[Source] = field(default_factory=Counter)

    @property
    def certain(self) -> list[Finding]:
        return [f for f in self.findings if f.certain]

    @property
    def uncertain(self) -> list[Finding]:
        return [f for f in self.findings if not f.certain]

    def count(self, source: Source, *, certain: bool = True) -> int:
        return sum(1 for f in self.findings if f.source is source and f.certain == certain)

    def cards(self, source: Source) -> set[tuple[int, int, str]]:
        """(seat, hand_no, card) found for certain in ``source``."""
        return {(f.seat, f.hand_no, f.card) for f in self.certain if f.source is source}

    def by_source(self) -> dict[str, int]:
        """Certain findings per source (and ``<source>?`` for uncertain ones)."""
        out: Counter[str] = Counter()
        for f in self.findings:
            out[f"{f.source}{'' if f.certain else '?'}"] += 1
        return dict(sorted(out.items()))


# --------------------------------------------------------------------------- mentions


def _msgpack(data: bytes) -> Any:
    """``data`` unpacked if it is exactly one msgpack value (a map or a list), else None."""
    if len(data) < 2 or data[0] not in (*range(0x80, 0xA0), 0xDC, 0xDD, 0xDE, 0xDF):
        return None
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:
        return None
    return obj if isinstance(obj, dict | list) else None


def _walk(
    value: Any,
    path: str,
    key: str | None,
    depth: int,
    *,
    shown: bool = False,
    public_keys: frozenset[str] = PUBLIC_KEYS,
) -> Iterator[Mention]:
    """Mentions in ``value``; ``shown``: it lies in a public list; ``public_keys``: the keys of
    the next map whose values are public lists (PUBLIC_KEYS, and a signed body's own)."""
    if depth > 64:
        return
    if isinstance(value, str):
        if value in CODES:
            yield Mention(value, path or "value", public=shown)
        elif _HEX.fullmatch(value):
            inner = _msgpack(bytes.fromhex(value))
            if inner is not None:
                yield from _walk(
                    inner,
                    f"{path}<hex msgpack>",
                    None,
                    depth + 1,
                    shown=shown,
                    public_keys=public_keys,
                )
    elif isinstance(value, bytes | bytearray | memoryview):
        inner = _msgpack(bytes(value))
        if inner is not None:
            yield from _walk(
                inner, f"{path}<msgpack>", None, depth + 1, shown=shown, public_keys=public_keys
            )
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if key in CARD_KEYS and 0 <= value < len(BY_INDEX):
            yield Mention(BY_INDEX[value], f"{path} (index {value})", public=shown)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _walk(k, f"{path}.<key>", None, depth + 1, shown=shown)
            below = shown or k in public_keys
            yield from _walk(v, f"{path}.{k}", str(k), depth + 1, shown=below)
    elif isinstance(value, list | tuple | set | frozenset):
        keys = PUBLIC_KEYS | _signed_public(value)
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}[{i}]", key, depth + 1, shown=shown, public_keys=keys)


def _signed_public(value: Any) -> frozenset[str]:
    """The public fields of a signed message ``[type, body, sig]`` (a ``reshuffle`` names the
    cards it recycles and keeps: face up, nobody's), else none."""
    if len(value) == 3 and isinstance(value, list | tuple) and isinstance(value[0], str):
        return SIGNED_PUBLIC.get(value[0], frozenset())
    return frozenset()


def mentions(item: Item, cache: dict[int, list[Mention]] | None = None) -> list[Mention]:
    """The card codes ``item`` holds (see the module doc). ``cache`` keeps the walk of each
    decoded value by identity (one message delivered to many connections is walked once)."""
    cache = {} if cache is None else cache
    if not item.raw:
        return [m for m in _walked(item.value, cache) if not m.public]
    if item.twins or item.copies:  # a hit of a card only public lists or copies name: none
        found = [m for v in item.twins for m in _walked(v, cache)]
        hidden = {m.card for m in found if not m.public}
        copied = {m.card for v in item.copies for m in _walked(v, cache)}
        shown = ({m.card for m in found if m.public} | copied) - hidden
        item = replace(item, confirm=frozenset(hidden | (item.confirm or set())))
    else:
        shown = set()
    out: list[Mention] = []
    if isinstance(item.value, str):
        for run in _runs(list(TEXT_CODE.finditer(item.value)), _LIST_GAP):
            if not _is_deck(run):
                out.extend(Mention(m.group(1), f"text @{m.start()}") for m in run)
        return out
    data = bytes(item.value)
    seen: set[int] = set()
    for run in _runs(list(MSGPACK_CODE.finditer(data)), b""):
        seen.update(m.start() + 1 for m in run)
        if _is_deck(run):
            continue
        for m in run:
            code = m.group(0)[1:].decode()
            out.append(Mention(code, f"msgpack str @{m.start()}", _confirmed(item, code)))
    for m in BYTES_CODE.finditer(data):
        if m.start() not in seen:
            code = m.group(1).decode()
            out.append(Mention(code, f"ascii @{m.start()}", _confirmed(item, code)))
    return [m for m in out if m.card not in shown]


#: what may stand between two codes of one list in text (JSON: ``"AS", "2S"``)
_LIST_GAP = re.compile(r'[", ]*')


def _runs(matches: list[re.Match[Any]], gap: re.Pattern[str] | bytes) -> Iterator[list[Any]]:
    """Matches grouped into runs of adjacent ones (one list of codes: a msgpack array, whose
    strings touch, or a JSON list, whose codes only quotes, commas and spaces part)."""
    run: list[re.Match[Any]] = []
    for m in matches:
        between = m.string[run[-1].end() : m.start()] if run else None
        if isinstance(gap, bytes):
            apart = between is not None and between != gap
        else:
            apart = between is not None and not gap.fullmatch(between)
        if apart:
            yield run
            run = []
        run.append(m)
    if run:
        yield run


_INDEX = {code: i for i, code in enumerate(BY_INDEX)}


def _is_deck(run: list[re.Match[Any]]) -> bool:
    """A run long enough and in canonical order: the public deck list (see DECK_RUN)."""
    codes = [m.group(0) for m in run]
    idx = [_INDEX[c[1:].decode() if isinstance(c, bytes) else c] for c in codes]
    return len(idx) >= DECK_RUN and idx == sorted(idx)


def _walked(value: Any, cache: dict[int, list[Mention]]) -> list[Mention]:
    found = cache.get(id(value))
    if found is None:
        found = cache[id(value)] = list(_walk(value, "", None, 0))
    return found


def _confirmed(item: Item, code: str) -> bool:
    return item.confirm is None or code in item.confirm


def public_codes(value: Any) -> tuple[frozenset[str], frozenset[str]]:
    """The codes a public message shows face up, and those its public lists name (a
    reshuffle's recycled cards, the deck)."""
    found = list(_walk(value, "", None, 0))
    return (
        frozenset(m.card for m in found if not m.public),
        frozenset(m.card for m in found if m.public),
    )


def codes_in(value: Any) -> frozenset[str]:
    """The codes a decoded value holds (the ``confirm`` of its raw twin)."""
    return frozenset(m.card for m in _walk(value, "", None, 0) if not m.public)


# --------------------------------------------------------------------------- timeline


@dataclass
class _Holding:
    start: int  #: when it went out of sight (the hand's start, or its last public sighting)
    dealt: int  #: when the host dealt it (its row of the ``card`` message, else the receipt)
    #: the host's journal batch that dealt it: a public message of the same batch showing the
    #: card (a bankruptcy after its last draw) shows it, whatever the order of the rows
    batch: int = -1
    down: int | None = None  #: when its client put it down (None: still held)


@dataclass
class _Hand:
    start: int
    end: int | None = None
    held: dict[str, list[_Holding]] = field(default_factory=dict)


class Timeline:
    """Each human seat's hidden cards, hand by hand, from its client's side.

    The harness reports :meth:`hand_started` (the client got ``hand_commit``), :meth:`dealt`
    (a ``card`` message to its seat reached the client), :meth:`put_down` (the client sent an
    action with ``card``/``cards``), :meth:`hand_ended` (the seat's ``hand_end`` or ``void``:
    the earlier of its client's receipt and the host's send on its connection), and
    :meth:`sighted` (a public message named a card: a play, a reshuffle's recycled cards, a One
    Card bankruptcy laying a hand face up), each with the clock's ``at``.

    A card can be held more than once in a hand: played, recycled by a reshuffle, dealt again.
    Each *holding* is hidden from the last public sighting of the card before the host dealt it
    (or the hand's start) until the first of: its client put it down, a public message showed it,
    the hand ended for the seat.
    """

    def __init__(self) -> None:
        self._hands: dict[tuple[int, int], _Hand] = {}
        self.names: dict[int, str] = {}
        self._current: dict[int, int] = {}
        #: card -> (when, host batch, recycled) of each public message naming it
        self._sightings: dict[str, list[tuple[int, int, bool]]] = {}
        #: what the clients reported, in order: (at, what, seat, hand_no, card)
        self.log: list[tuple[int, str, int, int, str]] = []

    def hand_started(self, seat: int, name: str, hand_no: int, at: int) -> None:
        self.names[seat] = name
        self._hands.setdefault((seat, hand_no), _Hand(start=at))
        self._current[seat] = hand_no

    def sighted(self, cards: Iterable[str], at: int, batch: int, *, recycled: bool) -> None:
        """A public message (journal row ``at`` of the host's ``batch``) named ``cards``:
        face up (``recycled`` False: a play, a bankruptcy) or going back into the stock (a
        reshuffle's list, the deck: out of sight from then on)."""
        for c in cards:
            self._sightings.setdefault(c, []).append((at, batch, recycled))

    def dealt(
        self, seat: int, hand_no: int, card: str, at: int, *, since: tuple[int, int] | None = None
    ) -> None:
        """``card`` reached the seat's client at ``at``; ``since``: when the host dealt it (the
        tick and batch of its ``card`` message's journal row)."""
        self.log.append((at, "dealt", seat, hand_no, card))
        hand = self._hands[(seat, hand_no)]
        dealt, batch = (at, -1) if since is None else since
        seen = [
            t for t, b, rec in self._sightings.get(card, ()) if t < dealt and (b < batch or rec)
        ]
        holding = _Holding(max([hand.start, *seen]), dealt, batch)
        hand.held.setdefault(card, []).append(holding)

    def put_down(self, seat: int, cards: Iterable[str], at: int) -> None:
        hand_no = self._current.get(seat)
        if hand_no is None:
            return
        hand = self._hands[(seat, hand_no)]
        for c in cards:
            self.log.append((at, "put down", seat, hand_no, c))
            open_ = [h for h in hand.held.get(c, ()) if h.down is None and h.start < at]
            if open_:
                open_[0].down = at

    def hand_ended(self, seat: int, hand_no: int, at: int) -> None:
        hand = self._hands.get((seat, hand_no))
        if hand is not None and (hand.end is None or at < hand.end):
            hand.end = at

    def secrets(self, *, until: int) -> list[Secret]:
        """Every hidden holding; a hand not ended by ``until`` is taken as ended then."""
        out = []
        for (seat, hand_no), hand in sorted(self._hands.items()):
            end = until if hand.end is None else hand.end
            for c, holdings in hand.held.items():
                for h in holdings:
                    shown = min(
                        (
                            t
                            for t, b, rec in self._sightings.get(c, ())
                            if not rec and (t > h.dealt or b == h.batch)
                        ),
                        default=end,
                    )
                    down = end if h.down is None else h.down
                    public, why = min((down, "put down"), (shown, "shown"), (end, "hand end"))
                    name = self.names[seat]
                    out.append(Secret(seat, name, hand_no, c, h.start, public, why))
        return out


# --------------------------------------------------------------------------- scan


def scan(items: Iterable[Item], secrets: Iterable[Secret]) -> Report:
    """Every (item, secret) where the item holds the secret's card while it is hidden."""
    by_card: dict[str, list[Secret]] = {}
    for s in secrets:
        by_card.setdefault(s.card, []).append(s)
    report = Report()
    cache: dict[int, list[Mention]] = {}
    for item in items:
        report.items[item.source] += 1
        seen: set[tuple[int, int, str, bool]] = set()
        for m in mentions(item, cache):
            for s in by_card.get(m.card, ()):
                key = (s.seat, s.hand_no, s.card, m.certain)
                if s.hidden_at(item.at) and key not in seen:
                    seen.add(key)
                    report.findings.append(
                        Finding(
                            item.source,
                            item.where,
                            item.at,
                            s.seat,
                            s.name,
                            s.hand_no,
                            s.card,
                            m.how,
                            m.certain,
                        )
                    )
    return report
