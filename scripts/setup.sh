#!/usr/bin/env bash
# Installs every Debian package GE's build and tests need (with --tools: only what building
# the tools and plugins needs; with --serve: that and ge-serve's HTTP and gRPC libraries).
# Idempotent; run as root (or with sudo available) on Debian 12.
set -euo pipefail
# What building ge-run, ge-compile and the plugins needs (scripts/quickstart.sh: --tools).
packages=(
  build-essential cmake ninja-build pkg-config
  libboost-dev libtomlplusplus-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libprotobuf-dev protobuf-compiler libxxhash-dev libonnx-dev zlib1g-dev
  libdnnl-dev libre2-dev
)
# ge-serve's HTTP and gRPC libraries (--serve, and the full set).
if [[ "${1:-}" != "--tools" ]]; then
  packages+=(libcpp-httplib-dev libgrpc++-dev protobuf-compiler-grpc)
fi
# What the test suite, the benchmarks, the fuzz targets and the Python module add
# (torch and torchvision: the real-model zoo, tests/zoo, exports its models with them).
if [[ "${1:-}" != "--tools" && "${1:-}" != "--serve" ]]; then
  packages+=(
    git python3 python3-onnx python3-numpy
    libgtest-dev libgmock-dev libbenchmark-dev
    libonnx-testdata locales
    clang libclang-rt-14-dev
    pybind11-dev python3-dev
    python3-torch python3-torchvision
    libtorch-dev  # the TorchScript parser plugin, the only part of GE that links libtorch
    curl python3-requests python3-grpcio python3-grpc-tools  # ge-serve's tests query it with them
  )
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
else
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The ONNX StringNormalizer conformance cases need an en_US.UTF-8 locale.
if [[ "${1:-}" != "--tools" && "${1:-}" != "--serve" ]] && ! locale -a 2>/dev/null | grep -qix 'en_US.utf-\?8'; then
  echo "setup: generating the en_US.UTF-8 locale"
  $SUDO localedef -i en_US -f UTF-8 en_US.UTF-8
fi
echo "setup: done"
