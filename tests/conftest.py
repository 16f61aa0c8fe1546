"""Suite-wide settings: Hypothesis profiles, and what the client knows of the host's games.

The default profile (``onecard``) makes every property test deterministic and free of wall-clock
limits, so the suite gives the same verdict on a fast laptop and on a loaded two-core CI machine:

* ``derandomize=True``: examples come from a fixed seed per test, not a fresh random one, so
  a run cannot fail on an example no earlier run tried (new examples are found with ``fuzz``);
* ``deadline=None``: Hypothesis' 200 ms per-example deadline is a speed check, and speed is
  measured by ``bench/``, never asserted by tests;
* no ``too_slow`` health check, for the same reason; ``database=None``: a clean clone and a
  used checkout behave alike.

``pytest --hypothesis-profile=fuzz`` explores: random seeds, 1,000 examples for each test that
does not set its own number, and the example database in ``.hypothesis/`` so that a failure it
finds is replayed on the next run. A test's own ``@settings`` wins over the profile for the
fields it names.

Every test starts with the client's catalogue (:data:`client.catalogue.CATALOGUE`) holding what
this host says of its games in its ``games`` reply, as a client that asked ``list_games`` does,
so client code tested without a host words events, titles and letters as it would at a table;
a test of the generic wording clears it (``CATALOGUE.forget()``), and the next test starts
afresh.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from client.catalogue import CATALOGUE, Catalogue
from host.games import game_entries

_HOST_SAYS = Catalogue(game_entries()).games


@pytest.fixture(autouse=True)
def _client_knows_the_hosts_games() -> Iterator[None]:
    CATALOGUE.games, CATALOGUE.learned = dict(_HOST_SAYS), True
    yield
    CATALOGUE.games, CATALOGUE.learned = dict(_HOST_SAYS), True


settings.register_profile(
    "onecard",
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "fuzz",
    derandomize=False,
    deadline=None,
    max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("onecard")
