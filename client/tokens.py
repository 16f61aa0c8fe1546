"""Resume tokens saved on the player's machine, so ``onecard join`` can take a seat back.

How it works: :class:`TokenStore` keeps one :class:`SavedSeat` per host address (``address:port``,
or a slot named for a table) in ``tokens.json`` under the user state directory
(:func:`default_state_dir`: ``$ONECARD_STATE_DIR`` or ``platformdirs.user_state_dir``), written
with mode 0600 since a token is a key to the seat. Reading never fails: a missing or damaged file
is an empty store (resuming is a convenience; a game is never lost over it).
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

__all__ = ["STATE_DIR_ENV", "SavedSeat", "TokenStore", "default_state_dir"]

#: environment variable naming the state directory (tokens and hand proofs)
STATE_DIR_ENV = "ONECARD_STATE_DIR"


def default_state_dir() -> Path:
    """Where tokens and hand proofs live: ``$ONECARD_STATE_DIR`` or the user state dir."""
    env = os.environ.get(STATE_DIR_ENV)
    if env:
        return Path(env)
    return Path(platformdirs.user_state_dir("onecard"))


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
