#!/usr/bin/env bash
# The native cores built with AddressSanitizer and UndefinedBehaviorSanitizer, in a copy of the tree,
# then the identity tests (a few hundred games per setup), the native API's fuzz test, both games' rule-based
# agents in lockstep with the Python ones (20 games per setup), both games' searches (one game per setup) and the
# thread stress test (several threads on one vector environment) run on them.
# Any sanitizer report aborts the run (UBSan does not recover; ASan's leak check is off: CPython itself
# keeps memory to the end).
#
#   bash .ci/sanitize.sh [games per setup]     from anywhere; default 300
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-300}"
start=$(date +%s)
tmp="$(mktemp -d "${TMPDIR:-/tmp}/five-towers-sanitize.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$tmp"  # the tree as git sees it: no in-place builds
python -m pip install -q "pybind11>=2.12" 2>&1 | { grep -v "^WARNING" || true; }  # setup.py builds outside pip here
( cd "$tmp" && FIVE_TOWERS_SANITIZE=1 FIVE_TOWERS_NATIVE_REQUIRED=1 python setup.py -q build_ext --inplace >/dev/null )
asan="$(gcc -print-file-name=libasan.so)"
ubsan="$(gcc -print-file-name=libubsan.so)"
built=$(date +%s)
cd "$tmp"
# the copy's package first on the path (the editable install of the checkout comes after PYTHONPATH)
PYTHONPATH="$tmp" python -c 'import five_towers_env, sys; assert five_towers_env.__file__.startswith(sys.argv[1]), five_towers_env.__file__' "$tmp"
export LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# the sanitized cores must be the ones imported (the tests skip where no core is built)
PYTHONPATH="$tmp" python -c 'import sys, five_towers_env.games.five_towers._native as f, five_towers_env.games.campanile._native as c
assert all(m.__file__.startswith(sys.argv[1]) for m in (f, c)), (f.__file__, c.__file__)' "$tmp"
PYTHONPATH="$tmp" FIVE_TOWERS_IDENTITY_GAMES="$games" FIVE_TOWERS_AGENT_GAMES=20 FIVE_TOWERS_SEARCH_GAMES=1 FIVE_TOWERS_ENGINE=native \
  python -m pytest -q -p no:cacheprovider tests/test_native_identity.py tests/test_native_fuzz.py \
  tests/games/five_towers/test_native_engine.py tests/games/five_towers/test_native_observation.py \
  tests/games/five_towers/test_five_towers_native_agents.py tests/games/five_towers/test_five_towers_native_search.py \
  tests/games/campanile/test_native_core.py \
  tests/games/campanile/test_native_agents.py tests/games/campanile/test_campanile_native_search.py \
  tests/test_native_threads.py tests/test_vector_env_inputs.py
echo "sanitize: build $((built - start)) s, tests $(( $(date +%s) - built )) s" >&2
