#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing may link the driver (libcuda.so.1) directly: every binary must start on
# a machine that has the toolkit but no driver, and fall back to the CPU there.
set -u
bad=0
for f in "$@"; do
  if readelf -d "$f" | grep -q 'NEEDED.*libcuda\.so'; then
    echo "FAIL: $f links libcuda directly"; bad=1
  else
    echo "ok: $f does not link libcuda"
  fi
done
exit $bad
