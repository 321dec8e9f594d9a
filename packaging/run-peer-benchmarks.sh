#!/usr/bin/env bash
# Builds and runs the side-by-side benchmark against DART, MuJoCo and
# Bullet (tests/benchmarks/peers, docs/performance.md). Installs the peers
# from Debian's packages (apt only, idempotent), configures the `bench`
# preset, and writes build/bench/peers.md and build/bench/peers.json.
#
#   packaging/run-peer-benchmarks.sh [articula-bench-peers options, e.g. --quick or --scene chain-30]
set -euo pipefail
cd "$(dirname "$0")/.."

packaging/install-deps.sh
peers=(libdart-all-dev libmujoco-dev)
missing=()
for p in "${peers[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if ((${#missing[@]} > 0)); then
  echo "run-peer-benchmarks: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake --preset bench
cmake --build --preset bench --target articula-bench-peers
build/bench/tests/benchmarks/articula-bench-peers --markdown build/bench/peers.md --json build/bench/peers.json "$@"
