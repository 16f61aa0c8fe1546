"""client/table_events.py: the values going into and out of the table machine."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from client import table_events
from client.table_events import Effect, Event, Failed, Failure, Request, SendAct, ShowInfo


def _classes(union: object) -> set[type]:
    return set(typing.get_args(union))


def test_every_event_and_effect_is_in_its_union_and_in_no_other() -> None:
    """The driver's ``match`` and mypy see only what the unions list: a value left out of
    them would be fed or performed unchecked."""
    defined = {
        cls
        for name in table_events.__all__
        if dataclasses.is_dataclass(cls := getattr(table_events, name)) and isinstance(cls, type)
    }
    events, effects = _classes(Event), _classes(Effect)
    assert events | effects == defined and not events & effects
    assert _classes(Request) <= effects


def test_events_and_effects_are_frozen_values() -> None:
    info = ShowInfo("hi", "info", {"seat": 1})
    assert info == ShowInfo("hi", "info", {"seat": 1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.text = "bye"  # type: ignore[misc]
    failed = Failed(SendAct({"type": "draw"}), "no (bad_action)")
    assert failed.failure is Failure.REFUSED  # the host said no, unless told otherwise
