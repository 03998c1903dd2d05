#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# abi_test.sh LIBRARY HEADER — the shared library's dynamic symbol table lists
# exactly the functions HEADER declares: no internal (cupat__*), C++ or CUDA
# registration symbol beside them, and none of the header's missing.
set -u
lib=$1 header=$2
command -v nm >/dev/null || { echo "SKIP: nm not found (binutils)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# defined, global dynamic symbols (functions and data), version suffix cut
nm -D --defined-only "$lib" | awk 'NF >= 3 && $2 ~ /^[A-Z]$/ && $2 != "A" { sub(/@.*/, "", $3); print $3 }' |
  sort -u >"$work/exported"
# the header's function names, comments stripped first (they name functions too)
cc -fpreprocessed -dD -E -P "$header" 2>/dev/null |
  grep -oE '(^|[^A-Za-z0-9_])cupat_[a-z][a-z0-9_]*[[:space:]]*\(' | sed -E 's/^[^c]*//; s/[[:space:]]*\($//' |
  sort -u >"$work/declared"
[ -s "$work/declared" ] || { echo "FAIL: no function found in $header"; exit 1; }
extra=$(comm -23 "$work/exported" "$work/declared")
missing=$(comm -13 "$work/exported" "$work/declared")
echo "$(wc -l <"$work/exported") exported, $(wc -l <"$work/declared") declared in $(basename "$header")"
rc=0
if [ -n "$extra" ]; then
  echo "FAIL: exported but not in $(basename "$header") ($(echo "$extra" | wc -l)):"
  echo "$extra" | head -n 40
  rc=1
fi
if [ -n "$missing" ]; then
  echo "FAIL: declared but not exported:"
  echo "$missing"
  rc=1
fi
[ "$rc" -eq 0 ] && echo "PASS: the exports are the header's functions"
exit "$rc"
