"""A hand record fetched with ``get_record`` is the host's stored file byte for byte
(``spec/PROTOCOL.md`` 4.6, 8.4: clients save the fetched text verbatim), including the trailing
newline, and a file stored before that (no trailing newline) is still served in the same form."""

from __future__ import annotations

import lzma
from typing import Any

import trio
import trio.testing

import protocol.table_messages as tm
from host.server.server import HostInfo
from protocol.hand_records import dump_record

RECORD: dict[str, Any] = {"format": "onecard-hand-record/1", "hand_no": 1, "names": ["Ann", "Ümit"]}


async def fetch(client: Any, table: str, hand_no: int) -> str:
    parts = await client.request_all(tm.GetRecord(table=table, hand_no=hand_no))
    return "".join(p.text for p in parts if isinstance(p, tm.RecordPart))


async def test_a_fetched_record_is_the_stored_file_byte_for_byte(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2)
    store = mock_host.host.lobby.store
    path = await store.records.save_record(table, 1, {**RECORD, "table_id": table})
    stored = lzma.decompress(path.read_bytes())  # kept compressed, served as the JSON text
    assert path.name.endswith(".json.xz")
    assert stored.endswith(b"}\n") and b"\r" not in stored
    # a record written by an older host (not compressed), without the trailing newline
    old = {**RECORD, "hand_no": 2, "table_id": table}
    store.records.record_path(table, 2).with_suffix("").write_bytes(
        dump_record(old).rstrip("\n").encode("utf-8")
    )
    async with connect_memory(mock_host) as client:
        assert (await fetch(client, table, 1)).encode("utf-8") == stored
        assert await fetch(client, table, 2) == dump_record(old)
