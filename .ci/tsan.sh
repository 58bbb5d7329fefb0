#!/usr/bin/env bash
# The native cores built with ThreadSanitizer, in a copy of the tree, then the thread stress test
# (tests/test_native_threads.py: several threads on one vector environment, and on states a compiled agent
# reads with the GIL released) on them. Any data race that TSan sees in the cores fails the run.
#
# CPython itself is not instrumented: TSan checks the cores' own memory accesses
# (ignore_noninstrumented_modules=1) and orders them by the locks it intercepts (the GIL is a pthread mutex and
# condition, the vector env's lock a std::mutex). The interpreter must be started directly, not through a
# shell wrapper (a pyenv shim crashes with libtsan preloaded): "$py" below.
#
#   bash .ci/tsan.sh       from anywhere; about a minute to build and a minute to run on two cores
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
tmp="$(mktemp -d "${TMPDIR:-/tmp}/five-towers-tsan.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$tmp"  # the tree as git sees it: no in-place builds
python -m pip install -q "pybind11>=2.12" 2>&1 | { grep -v "^WARNING" || true; }  # setup.py builds outside pip here
( cd "$tmp" && FIVE_TOWERS_SANITIZE=thread FIVE_TOWERS_NATIVE_REQUIRED=1 python setup.py -q build_ext --inplace >/dev/null 2>&1 )
py="$(python -c 'import os, sys; print(os.path.realpath(sys.executable))')"
tsan="$(gcc -print-file-name=libtsan.so)"
built=$(date +%s)
cd "$tmp"
export LD_PRELOAD="$tsan" TSAN_OPTIONS="ignore_noninstrumented_modules=1:halt_on_error=1:exitcode=66"
# the TSan cores must be the ones imported (they load only with libtsan preloaded)
PYTHONPATH="$tmp" "$py" -c 'import sys, five_towers_env.games.five_towers._native as f, five_towers_env.games.campanile._native as c
assert all(m.__file__.startswith(sys.argv[1]) for m in (f, c)), (f.__file__, c.__file__)' "$tmp"
# TSan is several times slower: the same stress, a longer bound on each case
PYTHONPATH="$tmp" FIVE_TOWERS_THREAD_TIMEOUT=600 "$py" -m pytest -q -p no:cacheprovider tests/test_native_threads.py
echo "tsan: build $((built - start)) s, tests $(( $(date +%s) - built )) s" >&2
