"""The message registry: every wire message type of the protocol, in the order of the spec.

How it works: each message module declares its types with ``@register``
(:func:`protocol.messages.register`, which checks the class). This module imports those
modules in the order of the spec's sections (:data:`SPEC_ORDER`) and builds
:data:`MESSAGE_TYPES` from them once, so the registry is complete and in the same order however
the rest of the program was imported. :func:`message_from_wire` decodes a wire map through it;
the connection state machine (:mod:`protocol.connection`) and the spec's message table
(:mod:`protocol.spec_tables`) read it. Import message classes from their own modules; import the
registry from here.

Adding a message module: put it in :data:`SPEC_ORDER` at its section's place. A class declared
with ``@register`` outside these modules is refused here (a test adds its own types to
:data:`MESSAGE_TYPES` by hand and removes them).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from protocol import lobby_messages, mask_messages, messages, table_messages
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.kinds import bad_field
from protocol.limits import MAX_NAME_LEN
from protocol.messages import Message, registered_types

__all__ = ["MESSAGE_TYPES", "SPEC_ORDER", "message_from_wire"]

SPEC_ORDER: tuple[ModuleType, ...] = (messages, lobby_messages, table_messages, mask_messages)
"""The message modules, in the order of the spec's sections: the core types (section 2), the
lobby (3), then play, the fair-deal wrapper, reconnect and chat (4-7), then the private
tables' requests (10)."""


def _build(modules: tuple[ModuleType, ...]) -> dict[str, type[Message]]:
    declared = registered_types()
    names = [module.__name__ for module in modules]
    stray = [cls for cls in declared if cls.__module__ not in names]
    if stray:
        raise TypeError(f"{stray[0].__name__} is declared outside the modules of SPEC_ORDER")
    return {cls.TYPE: cls for name in names for cls in declared if cls.__module__ == name}


MESSAGE_TYPES: dict[str, type[Message]] = _build(SPEC_ORDER)
"""Wire ``type`` string to message class, for every type of the protocol, in spec order."""


def message_from_wire(data: Mapping[str, Any]) -> Message:
    """Build the message a decoded wire map describes.

    Raises:
        LocalProtocolError: ``bad_field`` for a missing/non-str ``type`` or a missing or invalid
            field (the message names it), ``unknown_type`` for an unregistered ``type``,
            ``bad_card`` for a bad card code. Unknown extra keys are ignored.

    >>> message_from_wire({"type": "ping", "id": 7, "x_new_field": True})
    Ping(id=7, re=None)
    >>> message_from_wire({"type": "join", "table": "t1", "name": "ann"}).name
    'ann'
    """
    type_name = data.get("type")
    if not isinstance(type_name, str):
        raise bad_field("type", "missing" if type_name is None else "expected str")
    cls = MESSAGE_TYPES.get(type_name)
    if cls is None:
        raise LocalProtocolError(
            f"unknown message type {type_name[:MAX_NAME_LEN]!r}", code=ErrorCode.UNKNOWN_TYPE
        )
    return cls.from_wire(data)
