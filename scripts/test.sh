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

echo "== ruff"
"$VENV/bin/ruff" check .
echo "== mypy (strict: referee/, ladder/)"
"$VENV/bin/mypy"
echo "== generated protocol code is current"
"$PY" -m referee.protogen --check
echo "== pytest"
"$PY" -m pytest -m "not slow" -q -p no:cacheprovider "$@"
