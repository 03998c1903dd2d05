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
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n1)
export PKG_CONFIG_PATH=$libdir
cc -std=c11 -o "$work/saxpy_pc" "$src/examples/saxpy.c" $(pkg-config --cflags --libs cupat) \
   -Wl,-rpath,"$(dirname "$libdir")"
"$work/saxpy_pc"
echo "install test: CMake package (shared, static) and pkg-config builds ran"
