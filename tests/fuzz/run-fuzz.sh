#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in BUILD_DIR (default build/fuzz) and
# runs each for SECONDS (default 30) on a copy of its seed corpus. Exits 77
# (skipped) when clang++ is not installed, 1 when a target finds a crash or a
# timeout (libFuzzer's own default exit code for those is 77, which CTest
# would read as "skipped").
#
#   tests/fuzz/run-fuzz.sh [BUILD_DIR] [SECONDS]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build/fuzz}
seconds=${2:-30}
if ! command -v clang++ >/dev/null; then
  echo "run-fuzz: clang++ not found (packaging/install-deps.sh installs it)"
  exit 77
fi
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DARTICULA_BUILD_FUZZ=ON -DARTICULA_BUILD_APP=OFF -DARTICULA_BUILD_TESTS=OFF -DARTICULA_BUILD_BENCHMARKS=OFF \
  -DARTICULA_WARNINGS_AS_ERRORS=OFF >/dev/null
cmake --build "$build" -j2 --target fuzz_urdf_prepass fuzz_scene_file fuzz_replay_file fuzz_mesh_screen fuzz_mjcf_import
for pair in urdf_prepass:urdf scene_file:scene replay_file:replay mesh_screen:mesh mjcf_import:mjcf; do
  target=${pair%%:*}
  seeds=${pair##*:}
  work=$build/corpus-$seeds
  rm -rf "$work"
  mkdir -p "$work"
  cp "$src/tests/fuzz/corpus/$seeds"/* "$work"/
  echo "run-fuzz: fuzz_$target for ${seconds}s on $(ls "$work" | wc -l) seeds"
  "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -error_exitcode=1 -timeout_exitcode=1 "$work"
done
