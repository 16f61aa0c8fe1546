"""The built wheel, installed (not editable) in a fresh virtual environment beside a dummy
distribution that ships a ``protocol`` package of its own, as issue 19 found it: installed
after onecard it wrote over ``protocol/__init__.py`` and nothing said so; uninstalled, it took
the file along and ``pip check`` still said nothing. Now ``onecard`` refuses to start with one
line naming the conflict, and works again once onecard is reinstalled. The wheel carries the
spec (``python -m protocol --check-spec``), the LICENSE and the metadata.

Offline: the wheel is built with hatchling from the test environment (no build isolation), the
dummy wheel is written by hand, and the new environment (made without pip; this Python's pip
installs into it with ``--python``) finds onecard's dependencies in this environment's
site-packages through a ``.pth`` file.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def dummy_wheel(directory: Path) -> Path:
    """``dummy_protocol-1.0``: one ``protocol`` package, as a stranger's distribution has."""
    files = {
        "protocol/__init__.py": b'"""Not onecard\'s."""\n',
        "dummy_protocol-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: dummy-protocol\n"
        b"Version: 1.0\n",
        "dummy_protocol-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [_record_line(name, data) for name, data in files.items()]
    record.append("dummy_protocol-1.0.dist-info/RECORD,,")
    path = directory / "dummy_protocol-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr("dummy_protocol-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return path


@dataclass
class Env:
    """A fresh virtual environment and what runs in it."""

    python: Path
    scripts: Path
    site: Path
    cwd: Path

    def pip(self, *args: str) -> None:
        cmd = [sys.executable, "-m", "pip", "--python", str(self.python), *args]
        subprocess.run(cmd, check=True, capture_output=True, env=_quiet_pip())

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args),
            cwd=self.cwd,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONPATH": ""},
        )

    def onecard(self, *args: str) -> subprocess.CompletedProcess[str]:
        script = self.scripts / f"onecard{sysconfig.get_config_var('EXE') or ''}"  # .exe: Windows
        return self.run(str(script), *args)


def _quiet_pip() -> dict[str, str]:
    return {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        env=_quiet_pip(),
    )
    return next(out.glob("onecard-*.whl"))


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    builder = venv.EnvBuilder(with_pip=False)
    context = builder.ensure_directories(tmp_path / "venv")
    builder.create(tmp_path / "venv")
    base = {"base": str(tmp_path / "venv"), "platbase": str(tmp_path / "venv")}
    site = Path(sysconfig.get_path("purelib", vars=base))
    # onecard's dependencies from this environment, after the new one's own site-packages
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    yield Env(Path(context.env_exe), Path(sysconfig.get_path("scripts", vars=base)), site, cwd)


def test_a_dummy_protocol_distribution_beside_onecard_is_named_not_silent(
    wheel: Path, env: Env, tmp_path: Path
) -> None:
    env.pip("install", "--no-deps", str(wheel))
    assert env.onecard("--version").stdout.startswith("onecard, version ")

    env.pip("install", "--no-deps", str(dummy_wheel(tmp_path)))  # writes over protocol/
    broken = env.onecard("--version")
    init = env.site / "protocol" / "__init__.py"
    assert broken.returncode == 1 and broken.stdout == ""
    assert broken.stderr == (
        f"Error: onecard cannot start: {init} belongs to onecard 0.1.0 but dummy_protocol 1.0 "
        "installed its own 'protocol' package over it; the two cannot share that name: pip "
        "uninstall dummy_protocol, then pip install --force-reinstall onecard (pipx: pipx "
        "reinstall onecard)\n"
    )

    env.pip("uninstall", "--yes", "dummy-protocol")  # takes protocol/__init__.py along
    gone = env.onecard("--version")
    assert gone.returncode == 1 and gone.stderr.count("\n") == 1
    assert f"{init}, a file of onecard 0.1.0, is missing" in gone.stderr

    env.pip("install", "--no-deps", "--force-reinstall", str(wheel))
    assert env.onecard("--version").returncode == 0


def test_onecard_installed_after_the_dummy_works(wheel: Path, env: Env, tmp_path: Path) -> None:
    """The other order: onecard's files win, so onecard works (the dummy is the broken one)."""
    env.pip("install", "--no-deps", str(dummy_wheel(tmp_path)))
    env.pip("install", "--no-deps", str(wheel))
    assert env.onecard("--version").returncode == 0


def test_the_wheel_carries_the_spec_the_license_and_the_metadata(wheel: Path, env: Env) -> None:
    env.pip("install", "--no-deps", str(wheel))
    checked = env.run(str(env.python), "-m", "protocol", "--check-spec")
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", "")
    where = env.run(str(env.python), "-m", "protocol", "--spec-dir").stdout.strip()
    assert Path(where) == env.site / "protocol" / "spec"
    assert {p.name for p in Path(where).iterdir()} >= {"PROTOCOL.md", "RULES.md", "CLIENT-JSON.md"}
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read("onecard-0.1.0.dist-info/METADATA").decode()
    assert "onecard-0.1.0.dist-info/licenses/LICENSE" in names
    assert not any(n.startswith(("spec/", "tests/", "bench/")) for n in names)
    for field in (
        "License-Expression: MIT",
        "Author: The onecard maintainers",
        "Classifier: Programming Language :: Python :: 3.13",
        "Project-URL: Source, ",
    ):
        assert field in metadata
    links = re.findall(r"\]\(([^)]+)\)", metadata)  # README, shown on the package index
    assert links and [link for link in links if not link.startswith("https://")] == []
    help_text = " ".join(env.onecard("play", "--help").stdout.split())
    assert "python -m protocol --spec-dir prints its folder" in help_text  # CLIENT-JSON.md
