#!/usr/bin/env bash
# The native cores against the Python reference engines at CI's size: 1,000 seeded random games per setup
# (every player count, variant and option of both games), every seat's observation at every step, compared
# step by step with the Python engines (tools/native_identity.py; about 2 minutes on 2 cores). The
# 20,000-game soak of every setup is recorded in results/native_identity/ (its command in results/README.md).
#
#   bash .ci/identity.sh [games per setup]     from anywhere; default 1000
set -euo pipefail
cd "$(dirname "$0")/.."
python tools/native_identity.py --games "${1:-1000}" --workers 2
