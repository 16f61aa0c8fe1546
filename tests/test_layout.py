"""The house's layout rules are import-linter contracts in ``pyproject.toml``
(``[tool.importlinter]``), checked by ``lint-imports`` in ``make lint``; README's Layout
section says what each one keeps apart. These tests run the same contracts from the suite: on
the source, and on a small tree that breaks every one of them, so that each contract is known
to be able to fail.

What import-linter cannot see is a module named in a string. The ``onecard`` command's
registry (:data:`client.cli.COMMANDS`) names each subcommand's module that way, the host's
commands among them; :func:`test_the_command_registry_reaches_the_host_only_for_its_commands`
holds it to the client's own modules and the host's command modules.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from client.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
#: the host's modules a command of ``onecard`` may name (``onecard host``, ``bot``, ``replay``)
HOST_COMMAND_MODULES = {"host.tools.cli", "host.tools.replay_cmd"}
#: run import-linter in a fresh interpreter (the cwd's packages first on sys.path, no cache)
LINT = (
    "import sys; from importlinter.cli import lint_imports; "
    "sys.exit(lint_imports(no_logo=True, no_cache=True))"
)


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LINT], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_the_source_keeps_every_import_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_every_contract_can_fail(tmp_path: Path) -> None:
    """A tree that keeps the allowed crossings (each ignore_imports of the contracts) and breaks
    each contract once."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    sources = {
        "protocol/bad.py": "import trio\n",
        "protocol/cardfair.py": "import secrets\n",
        "protocol/messages.py": "",
        "protocol/lobby_messages.py": "from protocol import table_messages\n",
        "protocol/table_messages.py": "",
        "protocol/registry.py": "",
        "protocol/mask_messages.py": "",
        "protocol/masking.py": "import nacl\n",
        "net/bad.py": "from host.table.table import Table\n",
        "net/worse.py": "from onecard.startup import main\n",
        "host/table/table.py": "",
        "host/tools/embedded.py": "",
        "host/bad.py": "import client.render\n",
        "host/curve.py": "import nacl\n",
        "host/bots/bots.py": "from protocol.fairness import HandVerifier\n",
        "protocol/fairness.py": "",
        "protocol/verifier.py": "",
        "client/table_client.py": "",
        "client/table_loop.py": "",
        "client/table_machine.py": "",
        "host/storage/bad.py": "from host.tools.embedded import embedded_host\n",
        "host/server/__init__.py": "",
        "host/bots/__init__.py": "",
        "host/storage/__init__.py": "",
        "host/logs.py": "",
        "host/failures.py": "",
        "host/ratelimit.py": "",
        "host/games/__init__.py": "",
        "host/games/base.py": "",
        "host/games/private.py": "",
        "host/games/audit.py": "",
        "host/games/one/__init__.py": "",
        "host/games/one/worlds.py": "import random\nimport time\nimport host.bots.ai\n",
        "host/games/one/engine.py": "import random\nimport host.games.one.strategy\n",
        "host/games/one/strategy.py": "",
        "host/bots/ai/__init__.py": "",
        "host/bots/policy.py": "",
        "host/games/support.py": "",
        "host/games/deal.py": "",
        "client/render.py": "",
        "client/cli.py": "",
        "client/play_cmd.py": "from host.tools.embedded import embedded_host\n",
        "client/bad.py": "from host.table.table import Table\n",
        "client/ping.py": "import client.pong\n",
        "client/pong.py": "import client.ping\n",
        "onecard/startup.py": "from client.cli import main\n",
        "onecard/bad.py": "import protocol\n",
    }
    for name in list(sources):  # every folder a package (host's rooms included)
        for folder in Path(name).parents[:-1]:
            sources.setdefault(f"{folder.as_posix()}/__init__.py", "")
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        (ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"0 kept, {len(contracts)} broken" in result.stdout
    for line in (
        "protocol.bad -> trio",
        "net.bad -> host.table.table",
        "net.worse -> onecard.startup",
        "host.bad -> client.render",
        "host.curve -> nacl",
        "host.storage.bad -> host.tools.embedded",
        "client.bad -> host.table.table",
        "host.games.one.engine -> random",
        "host.games.one.worlds -> time",
        "host.games.one.engine -> host.games.one.strategy",
        "host.games.one.worlds -> host.bots.ai",
        "onecard.bad -> protocol",
        "host.bots.bots -> protocol.fairness",
        "protocol.lobby_messages -> protocol.table_messages",
        "No cycles are allowed in client.",
        ".pong -> .ping",
    ):
        assert line in result.stdout, line
    assert "client.play_cmd -> host.tools.embedded" not in result.stdout


def test_the_command_registry_reaches_the_host_only_for_its_commands() -> None:
    named = {entry.target.partition(":")[0] for entry in COMMANDS.values()}
    assert {name for name in named if not name.startswith("client.")} == HOST_COMMAND_MODULES
