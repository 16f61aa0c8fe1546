"""onecard/startup.py, the console script's check, on folders laid out as pip lays out a wheel:
a file another distribution wrote over is named with that distribution, a missing one says to
reinstall, and a ``protocol.py`` earlier on the path is never run."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from onecard.startup import PACKAGES, InstallProblem, check_files, load_own, own_record, prepare

ROOT = Path(__file__).resolve().parents[2]


def _hashed(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def _install(site: Path, name: str, files: dict[str, str]) -> None:
    """Lay ``files`` out in ``site`` with a dist-info and RECORD, as pip does."""
    info = site / f"{name}.dist-info"
    info.mkdir(parents=True)
    rows = []
    for rel, text in files.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        rows.append(f"{rel},{_hashed(text.encode())},{len(text)}")
    rows.append(f"{info.name}/RECORD,,")
    (info / "RECORD").write_text("\n".join(rows) + "\n")


def _onecard(site: Path) -> None:
    files = {f"{package}/__init__.py": f'"""{package}"""\n' for package in PACKAGES}
    files["protocol/spec/PROTOCOL.md"] = "# the spec\n"
    files["onecard/startup.py"] = "# the check\n"
    _install(site, "onecard-0.1.0", files)


def test_an_intact_install_passes(tmp_path: Path) -> None:
    _onecard(tmp_path)
    found = own_record(str(tmp_path))
    assert found is not None and os.path.basename(found[0]) == "onecard-0.1.0.dist-info"
    check_files(str(tmp_path), *found)


def test_a_file_another_distribution_wrote_over_names_it(tmp_path: Path) -> None:
    _onecard(tmp_path)
    _install(tmp_path, "dummy_protocol-1.0", {"protocol/__init__.py": "NAME = 'dummy'\n"})
    found = own_record(str(tmp_path))
    assert found is not None
    with pytest.raises(InstallProblem) as problem:
        check_files(str(tmp_path), *found)
    message = str(problem.value)
    assert "\n" not in message
    assert f"{tmp_path / 'protocol' / '__init__.py'} belongs to onecard 0.1.0" in message
    assert "dummy_protocol 1.0 installed its own 'protocol' package over it" in message
    assert "pip uninstall dummy_protocol" in message


def test_a_file_taken_away_says_to_reinstall(tmp_path: Path) -> None:
    """Uninstalling the other distribution removes the file both listed."""
    _onecard(tmp_path)
    (tmp_path / "protocol" / "__init__.py").unlink()
    found = own_record(str(tmp_path))
    assert found is not None
    with pytest.raises(
        InstallProblem,
        match=r"a file of onecard 0\.1\.0, is missing .* "
        r"pip install --force-reinstall onecard",
    ):
        check_files(str(tmp_path), *found)


def test_a_file_changed_by_no_distribution_says_so(tmp_path: Path) -> None:
    _onecard(tmp_path)
    (tmp_path / "net" / "__init__.py").write_text("changed\n")
    (tmp_path / "protocol" / "spec" / "PROTOCOL.md").write_text("not code: not checked\n")
    found = own_record(str(tmp_path))
    assert found is not None
    with pytest.raises(InstallProblem, match=r"net/__init__\.py was changed after onecard"):
        check_files(str(tmp_path), *found)


def test_a_source_checkout_has_no_record_to_check() -> None:
    assert own_record(str(ROOT)) is None
    prepare(str(ROOT))  # the packages this test runs are the checkout's: nothing to complain about


def test_a_package_imported_from_elsewhere_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _onecard(tmp_path)
    with pytest.raises(InstallProblem, match=r"^'protocol' was imported from .*/protocol/"):
        load_own(str(tmp_path))  # this process imported the checkout's protocol already
    missing = tmp_path / "elsewhere"
    missing.mkdir()
    for package in PACKAGES:
        monkeypatch.delitem(sys.modules, package)
    with pytest.raises(InstallProblem, match=r"protocol/__init__\.py is missing"):
        load_own(str(missing))


def test_a_protocol_module_in_the_working_directory_is_never_run(tmp_path: Path) -> None:
    """Before: ``PYTHONPATH=. onecard --version`` in a folder holding a ``protocol.py`` ran it."""
    for name in ("protocol", "client", "host", "net"):
        (tmp_path / f"{name}.py").write_text("raise SystemExit('shadowed: ' + __file__)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    result = subprocess.run(
        [sys.executable, "-m", "onecard", "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("onecard, version ")
