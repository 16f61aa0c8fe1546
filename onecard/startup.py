"""The console script's entry point: onecard's own ``protocol``, ``net``, ``host`` and ``client``,
or one line saying why not.

How it works: the four packages keep their bare top-level names when installed (README,
"Installed names"). Two things could then make ``onecard`` run someone else's code or break:

* shadowing: a folder earlier on ``sys.path`` (``PYTHONPATH=.``, ``python -m`` in a folder
  holding a ``protocol.py``) would be imported instead of onecard's package. :func:`load_own`
  loads the four packages by path from the folder this package was installed in (site-packages,
  or the source checkout of an editable install), before anything imports them: their
  submodules then come from the same folder (``__path__``), whatever ``sys.path`` holds;
* overwriting: pip lets another distribution that ships a ``protocol`` package write over
  onecard's files (installed after it), and take them away (uninstalled later), and ``pip
  check`` says nothing. In an installed wheel, :func:`check_files` compares every file of the
  four packages with the hash in onecard's own ``RECORD``; a file that differs or is missing
  ends the command with one line naming it, the distribution that wrote over it (from the
  other ``RECORD`` files) and what to do, exit status 1. An editable install or a source
  checkout has no hashes to compare: the files are the working tree.

Standard library only, and nothing of the four packages before they are checked; about 5 ms
for the hundred-odd files (``bench/cli_startup.py``).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import sys
from pathlib import Path

__all__ = ["PACKAGES", "InstallProblem", "check_files", "load_own", "main", "own_record"]

#: the top-level packages the onecard distribution installs besides this one
PACKAGES = ("protocol", "net", "host", "client")
#: this file, as onecard's RECORD lists it (how its own dist-info is told from others)
_ME = "onecard/startup.py"


class InstallProblem(Exception):
    """onecard's installed files are not what it installed; the message is one line."""


def read_record(dist_info: Path) -> dict[str, str]:
    """``path -> 'algorithm=digest'`` from a dist-info's RECORD (empty if it has none)."""
    try:
        text = (dist_info / "RECORD").read_text(encoding="utf-8")
    except OSError:
        return {}
    return {row[0]: row[1] for row in csv.reader(text.splitlines()) if len(row) >= 2}


def own_record(root: Path) -> tuple[Path, dict[str, str]] | None:
    """onecard's dist-info in ``root`` and its RECORD, or None: not an installed wheel there."""
    for dist_info in sorted(root.glob("onecard-*.dist-info")):
        record = read_record(dist_info)
        if _ME in record:
            return dist_info, record
    return None


def _release(dist_info: Path) -> str:
    """``name version`` from a dist-info folder's name (``dummy_protocol-1.0.dist-info``)."""
    name, _, version = dist_info.name.removesuffix(".dist-info").rpartition("-")
    return f"{name} {version}"


def _digest(data: bytes, algorithm: str) -> str:
    raw = hashlib.new(algorithm, data).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def check_files(root: Path, dist_info: Path, record: dict[str, str]) -> None:
    """Every module of the four packages (and of this one) as onecard's RECORD lists it.

    Raises:
        InstallProblem: a file is missing or differs; the message names it, the distribution
            that wrote over it when one lists it in its own RECORD, and what to do.
    """
    ours = _release(dist_info)
    reinstall = "pip install --force-reinstall onecard (pipx: pipx reinstall onecard)"
    for name, hashed in record.items():
        algorithm, _, expected = hashed.partition("=")
        if name.split("/", 1)[0] not in (*PACKAGES, "onecard") or not name.endswith(".py"):
            continue  # another distribution's, or not code (the spec, py.typed)
        if not expected:
            continue  # byte code pip compiled
        path = root / name
        try:
            data = path.read_bytes()
        except OSError:
            raise InstallProblem(
                f"{path}, a file of {ours}, is missing (uninstalling another distribution that "
                f"shipped a '{name.split('/')[0]}' package takes it along): {reinstall}"
            ) from None
        if _digest(data, algorithm) == expected:
            continue
        others = [
            other
            for other in sorted(root.glob("*.dist-info"))
            if other != dist_info and name in read_record(other)
        ]
        if not others:
            raise InstallProblem(f"{path} was changed after {ours} installed it: {reinstall}")
        theirs = _release(others[0])
        raise InstallProblem(
            f"{path} belongs to {ours} but {theirs} installed its own "
            f"'{name.split('/')[0]}' package over it; the two cannot share that name: "
            f"pip uninstall {theirs.split()[0]}, then {reinstall}"
        )


def load_own(root: Path) -> None:
    """Import the four packages from ``root`` by path, whatever ``sys.path`` holds.

    Raises:
        InstallProblem: a package is missing there, or another one of that name was imported
            already (only possible when this is called late, from a program of one's own).
    """
    for package in PACKAGES:
        init = root / package / "__init__.py"
        loaded = sys.modules.get(package)
        if loaded is not None:
            where = getattr(loaded, "__file__", None)
            if where is None or Path(where).resolve() != init.resolve():
                raise InstallProblem(f"'{package}' was imported from {where}, not from {init}")
            continue
        if not init.is_file():
            raise InstallProblem(f"{init} is missing: reinstall onecard")
        spec = importlib.util.spec_from_file_location(
            package, init, submodule_search_locations=[str(init.parent)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[package]
            raise


def prepare(root: Path | None = None) -> None:
    """Check the files (an installed wheel) and load the four packages from ``root``.

    Raises:
        InstallProblem: see :func:`check_files` and :func:`load_own`.
    """
    root = root if root is not None else Path(__file__).resolve().parent.parent
    found = own_record(root)
    if found is not None:
        check_files(root, *found)
    load_own(root)


def main() -> None:
    """The ``onecard`` console script: :func:`prepare`, then the click command."""
    try:
        prepare()
    except InstallProblem as exc:
        sys.stderr.write(f"Error: onecard cannot start: {exc}\n")
        sys.exit(1)
    from client.cli import main as run  # noqa: PLC0415 (only once the packages are checked)

    run()
