#!/usr/bin/env bash
# A machine without a C++ compiler: in a fresh venv, a copy of the tree (without the in-place builds)
# installs with CC=false CXX=false, the package says once that the native core is missing and how to
# get it, FIVE_TOWERS_ENGINE=native is refused with the reason, and the engine and rules tests pass on
# the Python engines.
#
#   bash .ci/no_compiler.sh      from anywhere
set -euo pipefail
cd "$(dirname "$0")/.."
unset FIVE_TOWERS_NATIVE_REQUIRED FIVE_TOWERS_ENGINE  # this machine has no compiler: the Python engines it is
start=$(date +%s)
tmp="$(mktemp -d "${TMPDIR:-/tmp}/five-towers-nocc.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$tmp/src"  # the tree as git sees it: no in-place builds
if [ -d ../shared ]; then  # the reference rules cases beside the copy, as beside the checkout
  ln -s "$(cd ../shared && pwd)" "$tmp/shared"
fi
python -m venv "$tmp/venv"
vpy="$tmp/venv/bin/python"
( cd "$tmp/src" && CC=false CXX=false "$vpy" -m pip install -q . pytest 2>&1 | { grep -v "^WARNING: Location" || true; } )
if ls "$tmp"/venv/lib/python*/site-packages/five_towers_env/games/*/_native* >/dev/null 2>&1; then
  echo "no_compiler.sh: a native module was built with CC=false" >&2; exit 1
fi
cd "$tmp"  # not the checkout: its in-place builds must not be found
"$vpy" - <<'PY'
import contextlib, io, os, subprocess, sys
out = subprocess.run([sys.executable, "-c", "import five_towers_env as f; print(f.engine_backend())"],
                     capture_output=True, text=True, check=True)
assert out.stdout.strip() == "python", out
lines = [line for line in out.stderr.splitlines() if line]
assert len(lines) == 1 and "native core is missing" in lines[0] and "pip install" in lines[0], out.stderr
bad = subprocess.run([sys.executable, "-c", "import five_towers_env as f; f.engine_backend()"],
                     capture_output=True, text=True, env={**os.environ, "FIVE_TOWERS_ENGINE": "native"})
assert bad.returncode != 0 and "not built" in bad.stderr, bad
print("no_compiler.sh: python backend, one line:", lines[0][:100], "...")
PY
FIVE_TOWERS_ENGINE=python "$vpy" -m pytest -q -p no:cacheprovider "$tmp/src/tests/test_rules_cases.py" \
  "$tmp/src/tests/games/five_towers/test_cards_actions.py" "$tmp/src/tests/games/five_towers/test_lookahead.py" \
  "$tmp/src/tests/games/five_towers/test_scoring.py" "$tmp/src/tests/games/campanile/test_campanile_engine.py" \
  "$tmp/src/tests/test_native_identity.py"
echo "no_compiler: $(( $(date +%s) - start )) s" >&2
