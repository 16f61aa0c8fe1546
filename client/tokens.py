"""Resume tokens saved on the player's machine, so ``onecard join`` can take a seat back.

How it works: :class:`TokenStore` keeps one :class:`SavedSeat` per host address (``address:port``,
or a slot named for a table) in ``tokens.json`` under the user state directory
(:func:`default_state_dir`: ``$ONECARD_STATE_DIR`` or ``platformdirs.user_state_dir``), written
with mode 0600 since a token is a key to the seat. Reading never fails: a missing or damaged file
is an empty store (resuming is a convenience; a game is never lost over it). One state
directory may hold several players' seats at one host (``HOST as NAME``) and one player's seats
at several tables (``HOST at TABLE``): :meth:`TokenStore.saved_seat` and
:meth:`TokenStore.seat_slot` decide which entry is whose.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

__all__ = ["STATE_DIR_ENV", "SavedSeat", "TokenStore", "default_state_dir", "named_slot"]

#: environment variable naming the state directory (tokens and hand proofs)
STATE_DIR_ENV = "ONECARD_STATE_DIR"


def default_state_dir() -> Path:
    """Where tokens and hand proofs live: ``$ONECARD_STATE_DIR`` or the user state dir."""
    env = os.environ.get(STATE_DIR_ENV)
    if env:
        return Path(env)
    return Path(platformdirs.user_state_dir("onecard", appauthor=False))


@dataclass(frozen=True, slots=True)
class SavedSeat:
    """A seat that can be resumed: where, which table, and the secret token."""

    host: str
    table: str
    name: str
    seat: int
    token: str

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class TokenStore:
    """Resume tokens by host address in ``tokens.json`` (mode 0600: a token is a seat key)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else default_state_dir()
        self.path = self.directory / "tokens.json"

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, data: dict[str, dict[str, Any]]) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1, sort_keys=True)
        except OSError:
            pass  # resuming is a convenience; never fail a game over it

    def get(self, host: str) -> SavedSeat | None:
        """The seat saved for ``host`` (``address:port``), if any."""
        item = self._load().get(host)
        if not isinstance(item, dict):
            return None
        try:
            return SavedSeat(
                host=host,
                table=str(item["table"]),
                name=str(item["name"]),
                seat=int(item["seat"]),
                token=str(item["token"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, saved: SavedSeat) -> None:
        data = self._load()
        data[saved.host] = saved.to_json()
        self._save(data)

    def forget(self, host: str) -> None:
        data = self._load()
        if data.pop(host, None) is not None:
            self._save(data)

    # -- which entry a player's seat is kept under

    def saved_seat(self, key: str, name: str | None, table: str | None = None) -> SavedSeat | None:
        """The seat to take back at ``key``: the one saved there when no ``--name`` was given,
        else only a seat saved under that very name (another player's seat is left alone);
        with ``table``, only a seat at that table (one saved apart for it included)."""
        slots = [key] if name is None else [key, named_slot(key, name)]
        if table is not None:
            slots += [f"{slot} at {table}" for slot in slots]
        for slot in slots:
            saved = self.get(slot)
            if saved is None or (name is not None and saved.name != name):
                continue
            if table is None or saved.table == table:
                return saved
        return None

    def seat_slot(self, key: str, name: str, table: str) -> str:
        """Where to save a new seat of ``name`` at ``table``: the host's own entry unless it
        holds someone else's seat, which must stay resumable (``join --name THEM``); and apart,
        under ``... at TABLE``, when that entry holds this player's seat at another table
        (``--new``, ``--create``, ``--table``), which stays resumable too."""
        held = self.get(key)
        slot = key
        if held is not None and held.name != name:
            slot = named_slot(key, name)
            held = self.get(slot)
        if held is not None and held.table != table:
            return f"{slot} at {table}"
        return slot


def named_slot(key: str, name: str) -> str:
    """The token store entry of a second player from this state directory at ``key``."""
    return f"{key} as {name}"  # a host:port has no spaces
