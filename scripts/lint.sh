#!/usr/bin/env bash
# The static checks, one list for `make lint` and `make test` alike: lint, format, strict types on
# common/, referee/, ladder/, webapp/, workers/ and service/ (django-stubs and djangorestframework-stubs
# through their mypy plugins: pyproject.toml's [tool.mypy] and [tool.django-stubs]), the import contracts
# (layers; pyproject.toml's [tool.importlinter]) and the checked-in generated protocol code. The tools are
# pinned in pyproject.toml, so a clean checkout passes or fails the same way on every machine.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
echo "== ruff check"
"$VENV/bin/ruff" check .
echo "== ruff format --check"
"$VENV/bin/ruff" format --check .
echo "== mypy (strict: common/, referee/, ladder/, webapp/, workers/, service/)"
"$VENV/bin/mypy"
echo "== import contracts (lint-imports: layers, pure engines and ladder, no cycles)"
"$VENV/bin/lint-imports" --no-cache --no-logo
echo "== generated protocol code is current"
"$VENV/bin/python" -m referee.protogen --check
