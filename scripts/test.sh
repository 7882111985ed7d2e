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
echo "== pytest"
"$PY" -m pytest -m "not slow" -q -p no:cacheprovider "$@"
