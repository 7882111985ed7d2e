#!/usr/bin/env bash
# The README's test command runs this (through `make test`): lint, types, generated-code check,
# then the default test suite against real PostgreSQL, Redis, Celery workers and Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PY="$VENV/bin/python"

# shellcheck source=scripts/services.sh
. scripts/services.sh
brawl_services_start
trap brawl_services_stop EXIT
echo "test: DATABASE_URL=$DATABASE_URL REDIS_URL=$REDIS_URL"

VENV="$VENV" bash scripts/lint.sh

# The default suite runs on pytest-xdist workers, one per core (at most 4: tests/conftest.py gives
# each its own Redis databases, and a Redis server has 16). Whole files go to one worker
# (--dist loadfile), so the tests of a file keep their order and module fixtures.
# BRAWL_TEST_WORKERS=0 runs everything in this process, as before.
WORKERS=${BRAWL_TEST_WORKERS:-$(nproc 2>/dev/null || echo 2)}
if [ "$WORKERS" -gt 4 ]; then WORKERS=4; fi
# Under CI a skipped test fails the run (tests/conftest.py): the services above install what the skips guard.
if [ -n "${CI:-}" ]; then export BRAWL_FORBID_SKIPS=1; fi
echo "== pytest ($WORKERS workers)"
if [ "$WORKERS" -gt 0 ]; then
  "$PY" -m pytest -m "not slow" -q -p no:cacheprovider -n "$WORKERS" --dist loadfile "$@"
else
  "$PY" -m pytest -m "not slow" -q -p no:cacheprovider "$@"
fi
