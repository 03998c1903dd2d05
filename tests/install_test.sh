#!/usr/bin/env bash
# Installs this build into a scratch prefix, then builds and runs the example
# program against it three ways: CMake package (shared and static) and pkg-config.
set -euo pipefail
build=$1 src=$2 nvcc_dir=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/examples" -B "$work/ex" -DCMAKE_PREFIX_PATH="$work/prefix" \
      ${nvcc_dir:+-DCUDAToolkit_ROOT="$nvcc_dir"} >/dev/null
cmake --build "$work/ex" >/dev/null
"$work/ex/saxpy"
"$work/ex/saxpy_static"
# The README's pkg-config line, exactly as it is written there (checked), run
# from a directory holding examples/saxpy.c; the program must start without
# LD_LIBRARY_PATH (on a machine without a GPU it runs on the CPU backend).
readme_line='cc examples/saxpy.c $(pkg-config --cflags --libs cupat) -o saxpy'
if ! grep -qxF "$readme_line" "$src/README.md"; then
  echo "install test: README.md no longer has the line: $readme_line" >&2
  echo "(update tests/install_test.sh to the README's pkg-config build)" >&2
  exit 1
fi
if ! command -v pkg-config >/dev/null; then
  echo "install test: CMake package (shared, static) builds ran;" \
       "pkg-config not found, its build skipped"
  exit 0
fi
PKG_CONFIG_PATH=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n1)
export PKG_CONFIG_PATH
mkdir "$work/pc" "$work/pc/examples"
cp "$src/examples/saxpy.c" "$work/pc/examples/"
(cd "$work/pc" && eval "$readme_line")
(cd "$work/pc" && env -u LD_LIBRARY_PATH ./saxpy)
echo "install test: CMake package (shared, static) and the README's pkg-config builds ran"
