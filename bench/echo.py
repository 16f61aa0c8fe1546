"""The floor for bench/server.py: a bare trio + msgpack echo server, what a frame costs at least.

How it works: every connection reads length-prefixed frames (4-byte big-endian length, then one
msgpack map, as the onecard protocol frames them), unpacks each body, packs it again and writes
it back: the least a host built on trio and msgpack can do per frame it sends (one socket read,
one decode, one encode, one socket write). bench/server.py runs it as a subprocess at the same
connection count and frame rate as the host it measured, and divides the host's CPU time per
frame by this server's. Run alone: ``python bench/echo.py [--port 0]``; it prints
``echo listening on 127.0.0.1:PORT`` and serves until killed.
"""

from __future__ import annotations

import argparse
import sys

import msgpack
import trio

HEADER = 4


async def _serve(stream: trio.SocketStream) -> None:
    buffered = bytearray()
    try:
        while True:
            chunk = await stream.receive_some(65536)
            if not chunk:
                return
            buffered += chunk
            out = bytearray()
            while len(buffered) >= HEADER:
                size = int.from_bytes(buffered[:HEADER], "big")
                if len(buffered) < HEADER + size:
                    break
                obj = msgpack.unpackb(bytes(buffered[HEADER : HEADER + size]), raw=False)
                del buffered[: HEADER + size]
                body = msgpack.packb(obj, use_bin_type=True)
                out += len(body).to_bytes(HEADER, "big") + body
            if out:
                await stream.send_all(bytes(out))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return


async def main_async(port: int) -> None:
    listeners = await trio.open_tcp_listeners(port, host="127.0.0.1", backlog=4096)
    bound = listeners[0].socket.getsockname()[1]
    print(f"echo listening on 127.0.0.1:{bound}", flush=True)
    await trio.serve_listeners(_serve, listeners)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    try:
        trio.run(main_async, args.port)
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
