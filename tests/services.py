"""One rule for tests that need a real browser, server or oracle (Chromium, Redis, nginx, Dask, Weka).

Locally a missing one skips the test with the reason; under CI (``CI`` set, as ``.ci/run`` does) the
test fails instead, so CI cannot pass by skipping what it was meant to check.
"""

from __future__ import annotations

import os

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(what: str, reason: str):
    """Skip (locally) or fail (under CI): ``what`` names the tests, ``reason`` what is missing and how to get it."""
    if in_ci():
        pytest.fail(f"{what} cannot run in CI: {reason}", pytrace=False)
    pytest.skip(f"{what} skipped locally: {reason}")
