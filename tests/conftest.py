"""Settings shared by the whole suite: Hypothesis profiles.

The ``fast`` profile (the default) keeps property tests quick enough to run on
every change on a two-core machine. ``HYPOTHESIS_PROFILE=thorough pytest``
runs them at length, for before a release or after touching the engine.
Deadlines are off in both: a test plays whole games, and a slow machine should
not turn into a flaky test.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast",
    max_examples=30,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))
