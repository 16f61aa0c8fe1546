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

Standard library only, and light: ``os.path`` rather than ``pathlib``, and the hashing
modules only for an installed wheel (about 5 ms for its hundred-odd modules;
``bench/cli_startup.py``). Nothing of the four packages is imported before they are checked.
"""

from __future__ import annotations

import importlib.util
import os
import sys

__all__ = ["PACKAGES", "InstallProblem", "check_files", "load_own", "main", "own_record"]

#: the top-level packages the onecard distribution installs besides this one
PACKAGES = ("protocol", "net", "host", "client")
#: this file, as onecard's RECORD lists it (how its own dist-info is told from others)
_ME = "onecard/startup.py"


class InstallProblem(Exception):
    """onecard's installed files are not what it installed; the message is one line."""


def read_record(dist_info: str) -> dict[str, str]:
    """``path -> 'algorithm=digest'`` from a dist-info's RECORD (empty if it has none)."""
    import csv  # noqa: PLC0415 (an installed wheel only)

    try:
        with open(os.path.join(dist_info, "RECORD"), encoding="utf-8", newline="") as fh:
            return {row[0]: row[1] for row in csv.reader(fh) if len(row) >= 2}
    except OSError:
        return {}


def _dist_infos(root: str, prefix: str = "") -> list[str]:
    try:
        names = os.listdir(root)
    except OSError:
        return []
    found = (n for n in names if n.startswith(prefix) and n.endswith(".dist-info"))
    return [os.path.join(root, n) for n in sorted(found)]


def own_record(root: str) -> tuple[str, dict[str, str]] | None:
    """onecard's dist-info in ``root`` and its RECORD, or None: not an installed wheel there."""
    for dist_info in _dist_infos(root, "onecard-"):
        record = read_record(dist_info)
        if _ME in record:
            return dist_info, record
    return None


def _release(dist_info: str) -> str:
    """``name version`` from a dist-info folder's name (``dummy_protocol-1.0.dist-info``)."""
    name, _, version = os.path.basename(dist_info).removesuffix(".dist-info").rpartition("-")
    return f"{name} {version}"


def _digest(data: bytes, algorithm: str) -> str:
    """The digest as RECORD writes it: urlsafe base64 without padding."""
    import binascii  # noqa: PLC0415 (an installed wheel only)
    import hashlib  # noqa: PLC0415

    raw = hashlib.new(algorithm, data).digest()
    encoded = binascii.b2a_base64(raw, newline=False).decode("ascii")
    return encoded.rstrip("=").replace("+", "-").replace("/", "_")


def check_files(root: str, dist_info: str, record: dict[str, str]) -> None:
    """Every module of the four packages (and of this one) as onecard's RECORD lists it.

    Raises:
        InstallProblem: a file is missing or differs; the message names it, the distribution
            that wrote over it when one lists it in its own RECORD, and what to do.
    """
    ours = _release(dist_info)
    reinstall = "pip install --force-reinstall onecard (pipx: pipx reinstall onecard)"
    for name, hashed in record.items():
        algorithm, _, expected = hashed.partition("=")
        package = name.split("/", 1)[0]
        if package not in (*PACKAGES, "onecard") or not name.endswith(".py"):
            continue  # another distribution's, or not code (the spec, py.typed)
        if not expected:
            continue  # byte code pip compiled
        path = os.path.join(root, *name.split("/"))
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            raise InstallProblem(
                f"{path}, a file of {ours}, is missing (uninstalling another distribution that "
                f"shipped a '{package}' package takes it along): {reinstall}"
            ) from None
        if _digest(data, algorithm) == expected:
            continue
        others = [d for d in _dist_infos(root) if d != dist_info and name in read_record(d)]
        if not others:
            raise InstallProblem(f"{path} was changed after {ours} installed it: {reinstall}")
        theirs = _release(others[0])
        raise InstallProblem(
            f"{path} belongs to {ours} but {theirs} installed its own '{package}' package over "
            f"it; the two cannot share that name: pip uninstall {theirs.split()[0]}, then "
            f"{reinstall}"
        )


def load_own(root: str) -> None:
    """Import the four packages from ``root`` by path, whatever ``sys.path`` holds.

    Raises:
        InstallProblem: a package is missing there, or another one of that name was imported
            already (only possible when this is called late, from a program of one's own).
    """
    for package in PACKAGES:
        init = os.path.join(root, package, "__init__.py")
        loaded = sys.modules.get(package)
        if loaded is not None:
            where = getattr(loaded, "__file__", None)
            if where is None or os.path.realpath(where) != os.path.realpath(init):
                raise InstallProblem(f"'{package}' was imported from {where}, not from {init}")
            continue
        if not os.path.isfile(init):
            raise InstallProblem(f"{init} is missing: reinstall onecard")
        spec = importlib.util.spec_from_file_location(
            package, init, submodule_search_locations=[os.path.dirname(init)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[package]
            raise


def prepare(root: str | None = None) -> None:
    """Check the files (an installed wheel) and load the four packages from ``root`` (by
    default the folder holding this package).

    Raises:
        InstallProblem: see :func:`check_files` and :func:`load_own`.
    """
    root = (
        root if root is not None else os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    )
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
