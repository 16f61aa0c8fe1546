"""Suite-wide settings: Hypothesis profiles, and a check that mock clocks are not ignored.

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
"""

from __future__ import annotations

import inspect

import pytest
from hypothesis import HealthCheck, settings

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


#: pytest-trio's clock fixtures. It runs a test on the clock the *test function* takes as an
#: argument; a clock that only a fixture requests is ignored, and the test sleeps in real time
#: (a 60 s grace period really took 61 s).
CLOCK_FIXTURES = frozenset({"autojump_clock", "mock_clock"})


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a test that gets a mock clock through a fixture (or ``usefixtures``) only."""
    if not isinstance(item, pytest.Function):
        return
    own = set(inspect.signature(item.function).parameters)
    ignored = sorted((CLOCK_FIXTURES & set(item.fixturenames)) - own)
    if ignored:
        pytest.fail(
            f"{', '.join(ignored)} is requested by a fixture of this test but not by the test "
            "function itself, so pytest-trio runs it on the real clock: add it to the test's "
            "arguments",
            pytrace=False,
        )
