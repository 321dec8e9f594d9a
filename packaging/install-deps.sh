#!/usr/bin/env bash
# Installs the Debian 12 packages Articula needs to build, test and run.
# Idempotent: packages already installed are skipped; apt only.
#
#   packaging/install-deps.sh            everything (engine, io, viewer, app, tests)
#   packaging/install-deps.sh --engine   only what the engine library and its tests need
#   packaging/install-deps.sh --peers    everything, and the peer engines the benchmark
#                                        compares against (DART, MuJoCo)
set -euo pipefail

engine_pkgs=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libbullet-dev
  qt6-base-dev            # Qt Test drives every test executable
  clang-format            # the format_check test (.clang-format)
)
full_pkgs=(
  "${engine_pkgs[@]}"
  libtinyxml2-dev liburdfdom-dev libsdformat-dev libassimp-dev
  libhdf5-dev hdf5-tools  # run logs (io/); h5dump reads them back in the tests
  libyaml-cpp-dev         # articula-run sweep files
  slurm-wlm munge         # the sweep tests start a one-node Slurm cluster
  python3-h5py            # the tests read run logs back in Python
  ffmpeg python3-pil      # render --video pipes frames into ffmpeg; the tests compare frames
  libopenscenegraph-dev libimgui-dev libgl-dev
  libgl1-mesa-dri         # llvmpipe: OpenGL under Xvfb for the rendering tests
  libqt6opengl6-dev qt6-base-dev-tools
  qt6-svg-dev             # the studio's plot panel exports SVG
  xvfb xauth
  clang libclang-rt-14-dev  # libFuzzer targets (tests/fuzz)
  file dpkg-dev           # CPack's .deb: file finds the ELF files, dpkg-shlibdeps the Depends (package_deb)
  python3-dev pybind11-dev python3-numpy  # the articula Python package (python/)
  python3-pytest python3-matplotlib       # its tests and examples
  libmujoco-dev           # MuJoCo loads exported MJCF in the tests (and is a benchmark peer)
)

peer_pkgs=(
  "${full_pkgs[@]}"
  libdart-all-dev  # tests/benchmarks/peers (optional backend)
)

pkgs=("${full_pkgs[@]}")
if [[ "${1:-}" == "--engine" ]]; then
  pkgs=("${engine_pkgs[@]}")
elif [[ "${1:-}" == "--peers" ]]; then
  pkgs=("${peer_pkgs[@]}")
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
