"""``python -m onecard``: the ``onecard`` command, checked like the installed console script."""

from __future__ import annotations

from onecard.startup import main

if __name__ == "__main__":
    main()
