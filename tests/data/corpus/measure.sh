#!/usr/bin/env bash
# Which files of the public corpus (corpus.list) Articula, DART 6.12 and
# MuJoCo load. For every file:
#   - articula-run inspect FILE --package-path ENTRY          (imports?)
#   - articula-run run FILE --duration 1 --package-path ENTRY (runs 1 s without diverging?)
#   - articula-corpus-peers (DART: DartLoader / SdfParser; MuJoCo: mj_loadXML, URDF only)
# prints one table row per file with the first line of each error, then the
# counts.
#
#   tests/data/corpus/measure.sh [BUILD_DIR]     (default: build/ci of this tree)
#
# articula-corpus-peers is built with ARTICULA_BUILD_BENCHMARKS=ON when DART
# or MuJoCo is installed (packaging/install-deps.sh --peers); without it the
# peer columns say "not built".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-$root/build/ci}
run=$build/app/run/articula-run
peers=$build/tests/benchmarks/articula-corpus-peers
if [[ ! -x $run ]]; then
  echo "measure.sh: $run not found; build the articula-run target first" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=${HOME:-$tmp}

# The first line of a file that says what went wrong, table-safe.
first_error() {
  local line
  line=$(grep -m1 -iE 'error|fail|diverg|cannot|could not|invalid|unknown|missing|not ' "$1" || true)
  [[ -z $line ]] && line=$(grep -m1 -v '^[[:space:]]*$' "$1" || true)
  # no terminal colours, no table separators, paths relative to the corpus
  line=$(printf '%s' "$line" | sed -e 's/\x1b\[[0-9;]*m//g' -e "s|$here/||g" -e 's/^articula-run: //')
  printf '%s' "${line//|//}" | cut -c1-240
}

mapfile -t files < <(grep -vE '^[[:space:]]*(#|$)' "$here/corpus.list")

# The peers, all at once (each load in its own process inside the tool).
declare -A dart mujoco
if [[ -x $peers ]]; then
  : > "$tmp/peers.list"
  for f in "${files[@]}"; do echo "$here/$f $here/${f%%/*}" >> "$tmp/peers.list"; done
  "$peers" --list "$tmp/peers.list" > "$tmp/peers.out" 2>&1
  while IFS='|' read -r _ file d m _; do
    file=$(echo "$file" | xargs)
    [[ $file == "$here/"* ]] || continue
    dart[${file#"$here/"}]=$(echo "$d" | sed -e 's/^ *//' -e 's/ *$//' -e "s|$here/||g")
    mujoco[${file#"$here/"}]=$(echo "$m" | sed -e 's/^ *//' -e 's/ *$//' -e "s|$here/||g")
  done < "$tmp/peers.out"
fi

n=0 imported=0 ran=0 dart_ok=0 mujoco_ok=0 urdf=0
echo "| file | Articula import | Articula run 1 s | DART | MuJoCo |"
echo "|---|---|---|---|---|"
for f in "${files[@]}"; do
  n=$((n + 1))
  [[ $f == *.urdf || $f == *.URDF ]] && urdf=$((urdf + 1))
  entry=$here/${f%%/*}
  if timeout 300 "$run" inspect "$here/$f" --package-path "$entry" > "$tmp/inspect.out" 2> "$tmp/inspect.err"; then
    imp=ok
    imported=$((imported + 1))
  else
    imp="error: $(first_error "$tmp/inspect.err")"
  fi
  timeout 300 "$run" run "$here/$f" --duration 1 --package-path "$entry" --quiet > "$tmp/run.out" 2> "$tmp/run.err"
  code=$?
  case $code in
    0) sim=ok; ran=$((ran + 1)) ;;
    3) sim="diverged: $(first_error "$tmp/run.err")" ;;
    124) sim="timed out after 300 s" ;;
    *) sim="error ($code): $(first_error "$tmp/run.err")" ;;
  esac
  d=${dart[$f]:-not built}
  m=${mujoco[$f]:-not built}
  [[ $d == ok ]] && dart_ok=$((dart_ok + 1))
  [[ $m == ok ]] && mujoco_ok=$((mujoco_ok + 1))
  echo "| $f | $imp | $sim | $d | $m |"
done
echo
echo "files: $n ($urdf URDF, $((n - urdf)) SDF)"
echo "Articula imported $imported of $n; ran 1 s without diverging: $ran of $n"
echo "DART loaded $dart_ok of $n"
echo "MuJoCo loaded $mujoco_ok of $n (it reads URDF only: $urdf of the files)"
