#!/usr/bin/env bash
# The core tests against the oldest supported releases of the core dependencies.
#
# Builds a throwaway virtual environment with the `==` pins of .ci/oldest-constraints.txt (the lower
# bounds in pyproject.toml), installs the package there (no torch, no stable-baselines3: their tests
# skip), and runs the test suite. Fails when any test fails.
#
#   bash .ci/oldest.sh [pytest args]      from the repository root; e.g. bash .ci/oldest.sh -x
#
# PYTHON picks the interpreter (default python3.11, else python3.10): the pinned numpy has wheels for
# Python 3.10 and 3.11 only. OLDEST_VENV=DIR builds (or reuses) the environment in DIR and keeps it.
set -euo pipefail
cd "$(dirname "$0")/.."

py="${PYTHON:-}"
if [ -z "$py" ]; then
  for candidate in python3.11 python3.10; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "" >/dev/null 2>&1; then py="$candidate"; break; fi
  done
fi
if [ -z "$py" ] || ! "$py" -c 'import sys; sys.exit(sys.version_info[:2] not in ((3, 10), (3, 11)))'; then
  echo "oldest.sh: needs Python 3.10 or 3.11 (set PYTHON=...); the pinned numpy 1.23.2 has no wheels for others" >&2
  exit 2
fi

if [ -n "${OLDEST_VENV:-}" ]; then
  venv="$OLDEST_VENV"
else
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/five-towers-oldest.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  venv="$tmp/venv"
fi
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
vpy="$venv/bin/python"

echo "oldest.sh: $("$vpy" --version) in $venv"
"$vpy" -m pip install -q -c .ci/oldest-constraints.txt -e . pytest pyyaml 2>&1 | { grep -v "^WARNING: Location" || true; }
"$vpy" -m pip check
# the pins must be what is installed: print them, and stop on any mismatch
"$vpy" - <<'PY'
import re, sys
from importlib.metadata import version
pins = {}
for line in open(".ci/oldest-constraints.txt"):
    m = re.match(r"\s*([A-Za-z0-9_.-]+)==(\S+)", line)
    if m:
        pins[m.group(1)] = m.group(2)
got = {name: version(name) for name in pins}
print("oldest.sh:", ", ".join(f"{n}=={v}" for n, v in got.items()))
bad = [n for n in pins if got[n] != pins[n]]
if bad:
    sys.exit(f"oldest.sh: installed versions differ from the pins: {bad}")
PY

# the whole suite: tests needing torch / stable-baselines3 / sb3-contrib / ray skip themselves
"$vpy" -m pytest -q -p no:cacheprovider "$@" tests
