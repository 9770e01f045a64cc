# Sourced by the SDK tests, which take BUILD_DIR SOURCE_DIR: installs GE from BUILD_DIR
# into a temporary prefix ($prefix, under $work; both removed on exit) and checks the
# install tree; build_sample builds a sample against that install only.
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
[[ -x $prefix/bin/ge-run && -f $prefix/bin/ge_plugins.toml && -f $prefix/lib/cmake/GE/GEConfig.cmake ]] ||
  fail "install tree is incomplete: $(ls -R "$prefix" | head -20)"

# build_sample NAME: copies samples/NAME to $work/NAME-src (outside GE's tree), configures
# it against the install only (find_package(GE)) and builds it into $work/NAME. Fails when
# a file the compiler read (ninja's dependency log) or a path in the build files comes
# from GE's source tree, or when no installed GE header was compiled.
build_sample() {
  cp -r "$source/samples/$1" "$work/$1-src"
  cmake -S "$work/$1-src" -B "$work/$1" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" > "$work/$1-configure.txt" 2>&1 || { cat "$work/$1-configure.txt"; fail "configure $1"; }
  cmake --build "$work/$1" > "$work/$1-build.txt" 2>&1 || { cat "$work/$1-build.txt"; fail "build $1"; }
  ninja -C "$work/$1" -t deps > "$work/$1-deps.txt"
  if grep -h -F -- "$source/" "$work/$1-deps.txt" "$work/$1/build.ninja" "$work/$1/CMakeCache.txt" |
     grep -v -F -- "$work/"; then
    fail "the $1 sample's build reads GE's source tree"
  fi
  grep -q -F "$prefix/include/ge/" "$work/$1-deps.txt" || fail "the $1 sample was not compiled against the installed headers"
}
