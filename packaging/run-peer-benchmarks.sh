#!/usr/bin/env bash
# Builds and runs the side-by-side benchmark against DART, MuJoCo and
# Bullet (tests/benchmarks/peers, docs/performance.md). Installs the peers
# from Debian's packages (apt only, idempotent), configures the `bench`
# preset, and writes build/bench/peers.md and build/bench/peers.json.
#
#   packaging/run-peer-benchmarks.sh [articula-bench-peers options, e.g. --quick or --scene chain-30]
set -euo pipefail
cd "$(dirname "$0")/.."

packaging/install-deps.sh --peers
cmake --preset bench
cmake --build --preset bench --target articula-bench-peers
build/bench/tests/benchmarks/articula-bench-peers --markdown build/bench/peers.md --json build/bench/peers.json "$@"
