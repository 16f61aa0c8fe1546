"""CI: the built wheel as a user gets it, on every supported Python this machine has.

For each of Python 3.11, 3.12 and 3.13 found here (``pythonX.Y`` on PATH, pyenv's versions,
the ``py`` launcher on Windows; the ones missing are named, at least one must be found):

* a fresh virtual environment, and the wheel from ``DIST`` installed into it (not editable; its
  dependencies from the package index, as ``pip install onecard`` or ``pipx`` would);
* from another folder, with ``PYTHONPATH`` pointing at a folder of decoy ``protocol.py``,
  ``net.py``, ``host.py`` and ``client.py`` that exit at once if run (issue 19: the installed
  command must not run them): ``onecard --version``, ``onecard play --watch --delay 0`` for each
  game of the installed host's registry (``host.games.game_names``), ``onecard verify`` on the
  hand records their hosts kept, ``onecard proofs``;
* ``python -m protocol --check-spec``, which reads the spec the wheel carries;
* on each Python but the one that ran the full suite (``--full``, by default this one), the
  fast suite (:data:`FAST_SUITE`) from the repository, in that environment.

Usage: ``python .ci/wheels.py [DIST] [--full X.Y]`` (``make wheels`` builds ``dist/`` first).
Standard library only; exits 1 at the first failure, with the command and its output.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SUPPORTED = ("3.11", "3.12", "3.13")
#: prints the games of the installed wheel's registry, one a line
LIST_GAMES = "from host.games import game_names; print('\\n'.join(game_names()))"
#: the sans-I/O protocol, the network helpers and the doctests: about a minute on two cores
FAST_SUITE = ("tests/protocol", "tests/net", "tests/test_doctests.py")
DECOYS = ("protocol", "net", "host", "client")


def _version(command: list[str]) -> str | None:
    probe = "import sys; print('%d.%d' % sys.version_info[:2])"
    try:
        done = subprocess.run(
            [*command, "-c", probe], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _candidates(minor: str) -> list[list[str]]:
    found = [[sys.executable]]
    on_path = shutil.which(f"python{minor}")
    if on_path:
        found.append([on_path])
    pyenv_root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    versions = glob.glob(os.path.join(pyenv_root, "versions", f"{minor}.*", "bin", "python3"))
    found += [[p] for p in sorted(versions, key=_release_key, reverse=True)]
    if os.name == "nt" and shutil.which("py"):
        found.append(["py", f"-{minor}"])
    return found


def _release_key(path: str) -> tuple[int, ...]:
    release = Path(path).parent.parent.name
    return tuple(int(p) for p in release.split(".") if p.isdigit())


def find_pythons() -> dict[str, list[str]]:
    """Supported version -> a command that runs that Python (a pyenv shim that refuses is
    skipped: each candidate is asked its version)."""
    found: dict[str, list[str]] = {}
    for minor in SUPPORTED:
        for command in _candidates(minor):
            if _version(command) == minor:
                found[minor] = command
                break
    return found


def run(command: list[Any], **kwargs: Any) -> str:
    """Run ``command``; on failure print it with its output and exit 1."""
    shown = " ".join(str(c) for c in command)
    print(f"$ {shown}", flush=True)
    done = subprocess.run(
        [str(c) for c in command], capture_output=True, text=True, check=False, **kwargs
    )
    if done.returncode != 0:
        sys.stdout.write(done.stdout + done.stderr)
        sys.exit(f"FAILED (exit status {done.returncode}): {shown}")
    return str(done.stdout)


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def check_wheel(python: list[str], wheel: Path, work: Path, *, with_tests: bool) -> Path:
    """Install the wheel in a fresh environment and play, verify and check the spec there;
    return that environment's Python."""
    venv = work / "venv"
    run([*python, "-m", "venv", venv])
    vpy = _venv_python(venv)
    wanted = f"{wheel}[test]" if with_tests else str(wheel)
    run([vpy, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wanted])
    onecard = vpy.with_name("onecard.exe" if os.name == "nt" else "onecard")

    elsewhere, decoys, state = work / "elsewhere", work / "decoys", work / "state"
    host_dir = work / "host"  # play --watch keeps no proofs: the records are its host's
    for folder in (elsewhere, decoys):
        folder.mkdir()
    for name in DECOYS:
        (decoys / f"{name}.py").write_text(f'raise SystemExit("the decoy {name}.py ran")\n')
    env = {**os.environ, "PYTHONPATH": str(decoys), "ONECARD_STATE_DIR": str(state)}
    env["NO_COLOR"] = "1"
    print(run([onecard, "--version"], cwd=elsewhere, env=env).strip())
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    games = run([vpy, "-c", LIST_GAMES], cwd=elsewhere, env=plain).split()
    if not games:
        sys.exit("FAILED: the installed host's registry lists no game")
    for game in games:
        command = [onecard, "play", "--watch", "--game", game, "--delay", "0"]
        command += ["--data-dir", str(host_dir)]
        out = run(command, cwd=elsewhere, env=env, stdin=subprocess.DEVNULL, timeout=300)
        print(out.strip().splitlines()[-1])
    records = sorted(host_dir.rglob("*.json.xz"))
    if len(records) < len(games):
        sys.exit(f"FAILED: {len(records)} hand records kept in {host_dir}, expected one a game")
    print(run([onecard, "verify", *records], cwd=elsewhere, env=env).strip())
    print(run([onecard, "proofs"], cwd=elsewhere, env=env).strip())
    run([vpy, "-m", "protocol", "--check-spec"], cwd=elsewhere, env=plain)
    print(f"spec checked: {run([vpy, '-m', 'protocol', '--spec-dir'], cwd=elsewhere).strip()}")
    return vpy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dist", nargs="?", type=Path, default=ROOT / "dist")
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    parser.add_argument("--full", default=here, help="the Python that ran the full suite")
    args = parser.parse_args()
    wheels = sorted(args.dist.glob("onecard-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"FAILED: expected one onecard wheel in {args.dist}, found {len(wheels)}")
    pythons = find_pythons()
    missing = [v for v in SUPPORTED if v not in pythons]
    print(f"Pythons found: {', '.join(pythons) or 'none'}; not found: {', '.join(missing) or '-'}")
    if not pythons:
        sys.exit("FAILED: no supported Python found")
    with tempfile.TemporaryDirectory(prefix="onecard-wheels-") as tmp:
        for minor, python in pythons.items():
            print(f"\n== Python {minor}: {' '.join(python)}", flush=True)
            work = Path(tmp) / minor
            work.mkdir()
            fast = minor != args.full
            vpy = check_wheel(python, wheels[0].resolve(), work, with_tests=fast)
            if fast:
                print(f"fast suite on {minor}:", flush=True)
                suite: list[Any] = [
                    vpy,
                    "-m",
                    "pytest",
                    "-p",
                    "no:cacheprovider",
                    "-n",
                    "auto",
                ]
                print(run([*suite, *FAST_SUITE], cwd=ROOT).strip().splitlines()[-1])
    print(f"\nthe wheel works on Python {', '.join(pythons)}")


if __name__ == "__main__":
    main()
