"""The software's version, from the installed distribution's metadata: the one place it is read.

How it works: ``pyproject.toml`` declares the version; :data:`VERSION` reads it back from the
installed ``onecard`` distribution (``importlib.metadata``), so ``onecard --version``, the
``software`` strings of ``hello``/``welcome`` (:func:`software`) and the package agree. Run from
a source tree that was never installed, it says ``0+unknown``.
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["DISTRIBUTION", "VERSION", "software"]

#: the distribution's name on a package index
DISTRIBUTION = "onecard"

try:
    VERSION: str = metadata.version(DISTRIBUTION)
except metadata.PackageNotFoundError:  # a source tree that was never installed
    VERSION = "0+unknown"


def software(role: str) -> str:
    """The ``software`` string a program sends in ``hello``/``welcome``.

    >>> software("cli").startswith("onecard-cli/")
    True
    """
    return f"onecard-{role}/{VERSION}"
