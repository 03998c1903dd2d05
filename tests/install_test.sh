#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs this build into a scratch prefix, then builds every example folder
# against it and runs each, the first also on the static archive and by the
# README's pkg-config line;
# and, where the build had MPI, a program on cupat::cupat_dist.
set -euo pipefail
build=$1 src=$2 nvcc_dir=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/examples" -B "$work/ex" -DCMAKE_PREFIX_PATH="$work/prefix" \
      ${nvcc_dir:+-DCUDAToolkit_ROOT="$nvcc_dir"} >/dev/null
cmake --build "$work/ex" >/dev/null
# every example folder's program, each checking its own result (exit 0)
for ex in vector_add/saxpy reduction/reduction scan/scan histogram/histogram sort/sort spmv_cg/cg bfs/bfs \
          gemm/gemm convolution/conv2d streams/overlap; do
  "$work/ex/$ex" || { echo "install test: example $ex failed" >&2; exit 1; }
done
"$work/ex/saxpy_static"
# With MPI the package has cupat::cupat_dist and cupat_dist.h: a program on
# them builds and runs as one rank (MPI's singleton start, no mpirun).
if [ -f "$work/prefix/include/cupat_dist.h" ]; then
  cmake -S "$src/tests/install_dist" -B "$work/dist" -DCMAKE_PREFIX_PATH="$work/prefix" \
        ${nvcc_dir:+-DCUDAToolkit_ROOT="$nvcc_dir"} >/dev/null
  cmake --build "$work/dist" >/dev/null
  "$work/dist/dist_hello"
fi
# The README's pkg-config line, exactly as it is written there (checked), run
# from a directory holding examples/vector_add/saxpy.c; no rpath in the flags: the
# program starts with LD_LIBRARY_PATH, as the README says (on a machine
# without a GPU it runs on the CPU backend).
readme_line='cc examples/vector_add/saxpy.c $(pkg-config --cflags --libs cupat) -o saxpy'
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
mkdir -p "$work/pc/examples/vector_add"
cp "$src/examples/vector_add/saxpy.c" "$work/pc/examples/vector_add/"
(cd "$work/pc" && eval "$readme_line")
libdir=$(dirname "$PKG_CONFIG_PATH")
if pkg-config --libs cupat | grep -q -- "-rpath"; then
  echo "install test: pkg-config --libs cupat carries an rpath: $(pkg-config --libs cupat)" >&2
  exit 1
fi
(cd "$work/pc" && LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ./saxpy)
echo "install test: CMake package (shared, static) and the README's pkg-config builds ran"
