#!/usr/bin/env bash
# The RLlib integration's own check, apart from .ci/run: RLlib pins its own gymnasium, so it gets a
# venv of its own. Builds it (CPU torch first, then the rllib extra and pytest) and runs
# tests/test_rllib.py, the RLlib checkpoint agent and the Ray runner (Ray core comes with RLlib).
# Usage, from anywhere: bash .ci/rllib.sh   (VENV=/path to put the venv elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-build/rllib-venv}"  # build/ is git-ignored
start=$(date +%s)
if [ ! -x "$VENV/bin/python" ]; then
  python -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
"$VENV/bin/python" -m pip install -q -e ".[rllib]" pytest
"$VENV/bin/python" -c 'import gymnasium, ray, torch; print(f"ray {ray.__version__}, gymnasium {gymnasium.__version__}, torch {torch.__version__}")'
installed=$(date +%s)
status=0
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/test_rllib.py tests/test_rllib_agent.py tests/test_ray.py \
  "tests/test_readme_snippets.py::test_snippet_runs[rllib]" || status=$?
end=$(date +%s)
echo "rllib check: install $((installed - start)) s, tests $((end - installed)) s, total $((end - start)) s" >&2
exit $status
