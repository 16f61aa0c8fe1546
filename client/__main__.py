"""``python -m client``: the ``onecard`` command without the installed entry point."""

from __future__ import annotations

from client.cli import main

if __name__ == "__main__":
    main()
