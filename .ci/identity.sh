#!/usr/bin/env bash
# The native cores against the Python reference engines, at CI's size: 20,000 seeded random games per
# setup (every player count, variant and option of both games), compared step by step
# (tests/test_native_identity.py; the suite itself plays a few dozen per setup).
#
#   bash .ci/identity.sh [games per setup]     from anywhere; default 20000; runs on both cores (xdist)
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-20000}"
start=$(date +%s)
FIVE_TOWERS_IDENTITY_GAMES="$games" FIVE_TOWERS_IDENTITY_ALL_SEATS=1000 \
  python -m pytest -q -p no:cacheprovider -n 2 tests/test_native_identity.py -k random_games_are_identical
echo "identity: $games games per setup in $(( $(date +%s) - start )) s" >&2
