"""What the front ends keep track of between pushes, for lines the host does not word itself.

How it works: each front end feeds every push to three small trackers, none of which knows any
rules:

* :class:`Presence` compares each ``table_info`` with the one before it (:func:`presence_changes`)
  and says which other seats dropped, came back or left ("Bob dropped ...", "Bob is back", "Cat
  left the table"); after our own reconnect the next ``table_info`` is taken quietly as the new
  baseline, so a host restart does not call every player "dropped", then "back";
* :class:`DealNumbers` learns from each ``deal`` event which game and hand each *table hand*
  (the fair-dealing number) is, so a verdict reads ``table hand 4 (game 2, hand 1)``;
* :class:`CardsLeft` counts the cards each seat holds from the last ``state`` and the public
  ``play`` and ``draw`` events since, for the outcome of a shedding game ("Cards left: ...").
"""

from __future__ import annotations

import protocol.table_messages as tm
from client.table_client import TableClient
from protocol.messages import Message

__all__ = ["CardsLeft", "DealNumbers", "Presence", "presence_changes"]


def presence_changes(
    before: tm.TableInfo | None, after: tm.TableInfo, me: int | None
) -> list[tuple[int, str, bool, str]]:
    """Seats (other than ``me``) whose connection dropped or came back between two
    ``table_info`` pushes, as ``(seat, name, connected, line)``.

    >>> def info(connected: bool) -> tm.TableInfo:
    ...     seat = {"seat": 1, "name": "Bob", "connected": connected}
    ...     return tm.TableInfo(table="t1", name="t", game="snap", options={}, phase="playing",
    ...                         seats=(None, seat), game_no=1, spectators=0, turn_timer=None,
    ...                         voids=0)
    >>> import dataclasses
    >>> presence_changes(info(True), info(False), 0)[0][3]
    'Bob dropped (the host plays for Bob after the grace period)'
    >>> left = dataclasses.replace(info(False), seats=(None, {"seat": 1, "name": "Bob",
    ...                            "connected": False, "substitute": True}))
    >>> presence_changes(info(True), left, 0)[0][3]
    'Bob left; a bot plays Bob'
    >>> presence_changes(info(False), info(True), 0)[0][3], presence_changes(None, info(False), 0)
    ('Bob is back', [])
    >>> presence_changes(info(True), dataclasses.replace(info(True), seats=(None, None)), 0)
    [(1, 'Bob', False, 'Bob left the table')]
    """
    if before is None or before.table != after.table:
        return []
    playing = after.phase in ("dealing", "playing")
    out = []
    for seat, (old, new) in enumerate(zip(before.seats, after.seats, strict=False)):
        if seat == me or old is None:
            continue
        if new is None:  # the seat was freed: its player left (or never came back)
            name = str(old.get("name"))
            out.append((seat, name, False, f"{name} left the table"))
            continue
        if old.get("name") != new.get("name"):
            continue
        was, now = old.get("connected") is not False, new.get("connected") is not False
        if was == now:
            continue
        name = str(new.get("name"))
        if now:
            line = f"{name} is back"
        elif playing and new.get("substitute") and not old.get("substitute"):
            line = f"{name} left; a bot plays {name}"  # a leave: the host's bot took the seat
        elif playing:
            line = f"{name} dropped (the host plays for {name} after the grace period)"
        else:
            line = (
                f"{name} dropped (the seat is freed if {name} is not back within the grace period)"
            )
        out.append((seat, name, now, line))
    return out


class Presence:
    """Who dropped and came back, from one ``table_info`` to the next (:func:`presence_changes`),
    quiet across our own reconnect: after a host restart every client reconnects, and the
    first ``table_info`` would call each player not yet back "dropped", then "back". After
    :meth:`reconnected` the next ``table_info`` is the new baseline: it only says "X is back"
    for a player already said to have dropped, and players missing from it are not said to be
    back when they return; drops after it are said as usual."""

    def __init__(self) -> None:
        self.info: tm.TableInfo | None = None  #: the last table_info
        self.said_dropped: set[tuple[int, str]] = set()  #: drops said and not yet back
        self.unsaid: set[tuple[int, str]] = set()  #: missing at a quiet baseline
        self.quiet = False  #: the next table_info is a baseline after our reconnect

    def reconnected(self) -> None:
        self.quiet = True

    def see(self, info: tm.TableInfo, me: int | None) -> list[tuple[int, str, bool, str]]:
        """The changes to tell, as :func:`presence_changes` gives them."""
        before, self.info = self.info, info
        changes = presence_changes(before, info, me)
        if self.quiet and before is not None and before.table == info.table:
            self.quiet = False
            told = [c for c in changes if c[2] and (c[0], c[1]) in self.said_dropped]
            for seat, held in enumerate(info.seats):
                if held is not None and held.get("connected") is False:
                    who = (seat, str(held.get("name")))
                    if who not in self.said_dropped:
                        self.unsaid.add(who)
            changes = told
        out = []
        for change in changes:
            who = (change[0], change[1])
            if change[2]:  # back
                if who in self.unsaid:
                    self.unsaid.discard(who)
                    continue
                self.said_dropped.discard(who)
            else:
                self.unsaid.discard(who)
                if info.seats[change[0]] is None:  # left: nobody to say is back
                    self.said_dropped.discard(who)
                else:
                    self.said_dropped.add(who)
            out.append(change)
        return out


class DealNumbers:
    """Which game and hand each table hand is: the fair-dealing messages, the verdicts and the
    hand records number every hand dealt at the table (``table hand 4``), the game's own lines
    count hands within a game (``Game 2, hand 1``). A game's ``deal`` event comes after its
    HAND_COMMIT, so the hand being checked then is the one dealt."""

    def __init__(self) -> None:
        self.games: dict[int, tuple[int, int]] = {}

    def see(self, tc: TableClient, push: Message) -> None:
        if isinstance(push, tm.EventPush) and push.event.get("kind") == "deal":
            hand = push.event.get("hand_no", 1)
            table_hand = tc.checker.hand_no
            if table_hand and isinstance(hand, int):
                self.games.setdefault(table_hand, (tc.game_no or 1, hand))

    def label(self, table_hand: int) -> str:
        """``table hand 4 (game 2, hand 1)``; the game and hand are left out when they say
        nothing more (game 1, the same number) or are not known."""
        game = self.games.get(table_hand)
        if game is None or game == (1, table_hand):
            return f"table hand {table_hand}"
        return f"table hand {table_hand} (game {game[0]}, hand {game[1]})"


class CardsLeft:
    """Cards each seat holds, for the outcome: the last ``state``'s ``hand_counts`` moved on by
    the public ``play`` and ``draw`` events since (the game's last ``state`` comes after its
    ``game_over``). Counting only, no rules: the host's counts replace ours at every state."""

    def __init__(self) -> None:
        self.counts: list[int] | None = None
        self.seq = 0  #: the table seq counted up to (a state shown again is older)
        self.bankrupt: set[int] = set()  #: One Card seats that went bankrupt this game

    @property
    def shown(self) -> list[int] | None:
        """The counts for :func:`client.render.render_outcome` (-1: went bankrupt)."""
        if self.counts is None:
            return None
        return [-1 if seat in self.bankrupt else n for seat, n in enumerate(self.counts)]

    def see(self, push: Message) -> None:
        seq = getattr(push, "seq", None)
        if isinstance(seq, int):
            if seq < self.seq:
                return
            self.seq = seq
        if isinstance(push, tm.GameStart):
            self.counts = None
            self.bankrupt = set()
        elif isinstance(push, tm.StatePush):
            counts = push.view.get("hand_counts")
            ok = isinstance(counts, list) and all(isinstance(n, int) for n in counts)
            self.counts = list(counts) if ok and isinstance(counts, list) else None
            bankrupt = push.view.get("bankrupt")
            if isinstance(bankrupt, list):
                self.bankrupt = {s for s in bankrupt if isinstance(s, int)}
        elif isinstance(push, tm.EventPush) and self.counts is not None:
            event, counts = push.event, self.counts
            seat = event.get("seat")
            if not isinstance(seat, int) or not 0 <= seat < len(counts):
                return
            if event.get("kind") == "play":
                played = event.get("cards")
                counts[seat] = max(
                    0, counts[seat] - (len(played) if isinstance(played, list) else 1)
                )
            elif event.get("kind") == "draw" and "cards" not in event:  # the public one
                count = event.get("count")
                counts[seat] += count if isinstance(count, int) else 1
            elif event.get("kind") == "bankrupt":  # One Card: the whole hand goes
                counts[seat] = 0
                self.bankrupt.add(seat)
