#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/install-deps without a package network: PATH holds only fakes (id,
# apt-get, cmake, make, cc, nvcc, pkg-config as each case needs), the headers
# are looked for in an empty directory, and apt-get fails the way it does when
# no server can be reached (exit 100). Optional libraries that cannot be
# installed must cost one line of stderr and exit 0; a missing required tool
# must stop with exit 1 and say which. Last, `make build` in the same
# setting must go on past the note to configure and build, and `make run`
# must build the CLI alone and run the quick tour.
# Usage: install_deps_test.sh SOURCE_DIR
set -u
src=$1
script=$src/scripts/install-deps
bash=$(command -v bash)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

fake() { # fake NAME BODY: an executable $work/bin/NAME running BODY
  printf '#!%s\n%s\n' "$bash" "$2" >"$work/bin/$1"
  chmod +x "$work/bin/$1"
}
# setup UID TOOLS APT: a fresh bin with `id -u` = UID, the tools listed, and
# an apt-get whose every call is logged and exits APT (or runs APT as a body).
setup() {
  rm -rf "$work/bin" "$work/inc" "$work/apt.log"
  mkdir -p "$work/bin" "$work/inc"
  fake id "echo $1"
  local t
  for t in $2; do fake "$t" 'exit 0'; done
  case $3 in
    none) ;;
    [0-9]*) fake apt-get "echo \"\$*\" >>'$work/apt.log'; echo 'E: Failed to fetch (fake)' >&2; exit $3" ;;
    *) fake apt-get "echo \"\$*\" >>'$work/apt.log'; $3" ;;
  esac
}
# run_case NAME RC ERR_REGEX ERR_LINES: runs the script, checks exit code,
# stderr (a regex) and its number of lines.
run_case() {
  local name=$1 want_rc=$2 want_err=$3 want_lines=$4 rc err lines
  err=$(PATH="$work/bin" NVCC= CUDA_HOME="$work/nocuda" CUPAT_DEPS_INCLUDE_DIRS="$work/inc" \
        CUPAT_APT_TIMEOUT=1 "$bash" "$script" 2>&1 >"$work/stdout")
  rc=$?
  lines=$(printf '%s' "$err" | grep -c '')
  if [ "$rc" != "$want_rc" ] || ! [[ $err =~ $want_err ]] || [ "$lines" != "$want_lines" ]; then
    echo "FAIL $name: exit $rc (want $want_rc), $lines stderr lines (want $want_lines)"
    echo "  stderr: $err"
    echo "  want:   $want_err"
    echo "  stdout: $(cat "$work/stdout")"
    [ -e "$work/apt.log" ] && sed 's/^/  apt-get /' "$work/apt.log"
    fails=$((fails + 1))
  else
    echo "ok   $name: exit $rc; ${err:-(no stderr)}"
  fi
}
apt_log_has() { # apt_log_has NAME REGEX: some apt-get call matched REGEX
  if ! grep -Eq -- "$2" "$work/apt.log" 2>/dev/null; then
    echo "FAIL $1: no apt-get call matches '$2'"; fails=$((fails + 1))
  fi
}

tools="cmake make cc nvcc pkg-config"
opt_pkgs="libpng-dev libcjson-dev"

# 1. Root, all tools present, no optional headers, apt-get fails (no network):
#    one note naming every optional package, exit 0.
setup 0 "$tools" 100
run_case offline-optional 0 "^install-deps: note: optional libpng-dev libcjson-dev not installed \(apt-get could not install them; no package network\?\); building without PNG images, 'cupat bench --json'$" 1
apt_log_has offline-optional "install .*libpng-dev"

# 2. Same, pkg-config missing too: still one line, still exit 0.
setup 0 "cmake make cc nvcc" 100
run_case offline-no-pkg-config 0 "^install-deps: note: optional $opt_pkgs pkg-config not installed .*the pkg-config install check$" 1

# 3. Root, cmake missing, apt-get fails: a clear error naming cmake, exit 1.
setup 0 "make cc nvcc pkg-config" 100
run_case offline-no-cmake 1 "^install-deps: error: apt-get could not install required cmake \(E: Failed to fetch \(fake\)\)" 1

# 4. Root, cmake missing, apt-get can install cmake but no optional package:
#    required ones go in their own call and succeed, exit 0 with the note.
setup 0 "make cc nvcc pkg-config" \
  'for a; do case $a in lib*) echo "E: Unable to locate package $a" >&2; exit 100 ;; esac; done; exit 0'
run_case optional-only-fail 0 "^install-deps: note: optional $opt_pkgs not installed" 1
apt_log_has optional-only-fail "install -y --no-install-recommends cmake$"

# 5. One optional package cannot be had, the others can: only it is named.
setup 0 "cmake make cc nvcc" \
  'for a; do [ "$a" = libcjson-dev ] && { echo "E: Unable to locate package $a" >&2; exit 100; }; done; exit 0'
run_case one-optional-missing 0 "^install-deps: note: optional libcjson-dev not installed .*; building without 'cupat bench --json'$" 1
apt_log_has one-optional-missing "install .*libpng-dev"
apt_log_has one-optional-missing "install .*pkg-config"

# 6. Not root: optional ones missing is a note, exit 0, apt-get never called.
setup 1000 "$tools" 100
run_case not-root-optional 0 "^install-deps: note: optional $opt_pkgs not installed \(not root: 'sudo make deps' installs them\)" 1
if [ -e "$work/apt.log" ]; then echo "FAIL not-root-optional: apt-get was called"; fails=$((fails + 1)); fi

# 6b. Root with apt-get, CUPAT_NO_DEPS=1: apt-get never called, one note;
#     a missing required tool is an error naming it.
setup 0 "$tools" 0
CUPAT_NO_DEPS=1 run_case no-deps-optional 0 "^install-deps: note: optional $opt_pkgs not installed \(CUPAT_NO_DEPS=1\)" 1
if [ -e "$work/apt.log" ]; then echo "FAIL no-deps-optional: apt-get was called"; fails=$((fails + 1)); fi
setup 0 "make cc nvcc pkg-config" 0
CUPAT_NO_DEPS=1 run_case no-deps-no-cmake 1 "^install-deps: error: missing required cmake \(CUPAT_NO_DEPS=1" 1
if [ -e "$work/apt.log" ]; then echo "FAIL no-deps-no-cmake: apt-get was called"; fails=$((fails + 1)); fi

# 7. Not root, make missing: exit 1 naming it.
setup 1000 "cmake cc nvcc pkg-config" 100
run_case not-root-no-make 1 "^install-deps: error: missing required make: install them" 1

# 8. No nvcc anywhere: exit 0, one note: the CPU backend alone, and how to
#    point at the toolkit.
setup 0 "cmake make cc pkg-config" 100
mkdir -p "$work/inc/cjson"
: >"$work/inc/png.h"; : >"$work/inc/cjson/cJSON.h"
run_case no-nvcc 0 "^install-deps: note: nvcc not found: building the CPU backend alone.*NVCC" 1

# 9. Everything there: silent, exit 0, apt-get never called.
setup 0 "$tools" 100
mkdir -p "$work/inc/cjson"
: >"$work/inc/png.h"; : >"$work/inc/cjson/cJSON.h"
run_case all-present 0 "^$" 0
if [ -e "$work/apt.log" ]; then echo "FAIL all-present: apt-get was called"; fails=$((fails + 1)); fi

# 10. `make build` on a fresh tree, root, offline, optional headers missing:
#     the note, then cmake configures and builds (a fake cmake logs its calls).
setup 0 "cc nvcc pkg-config" 100
ln -s "$bash" "$work/bin/bash"
ln -s "$(command -v make)" "$work/bin/make"
fake cmake "echo \"\$*\" >>'$work/cmake.log'"
out=$(cd "$src" && PATH="$work/bin" NVCC="$work/bin/nvcc" CUPAT_DEPS_INCLUDE_DIRS="$work/inc" \
      CUPAT_APT_TIMEOUT=1 make --no-print-directory build BUILD="$work/build" JOBS=2 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! [[ $out =~ "install-deps: note: optional $opt_pkgs not installed" ]] ||
   ! grep -q -- "-S \. -B $work/build" "$work/cmake.log" 2>/dev/null ||
   ! grep -q -- "--build $work/build -j 2" "$work/cmake.log"; then
  echo "FAIL make-build-offline: exit $rc"; echo "$out" | sed 's/^/  /'
  sed 's/^/  cmake /' "$work/cmake.log" 2>/dev/null
  fails=$((fails + 1))
else
  echo "ok   make-build-offline: exit 0, configured and built after the note"
fi

# 11. `make run` builds the CLI alone (not the tests), then the quick tour.
out=$(cd "$src" && make --no-print-directory -n run BUILD="$work/build" JOBS=2 2>&1)
if ! [[ $out =~ "--build $work/build -j 2 --target cupat_cli" ]] ||
   ! [[ $out =~ "cupat info" ]] || ! [[ $out =~ "cupat bench all --quick" ]]; then
  echo "FAIL make-run-quick:"; echo "$out" | sed 's/^/  /'
  fails=$((fails + 1))
else
  echo "ok   make-run-quick: builds cupat_cli, runs info and bench all --quick"
fi

[ "$fails" -eq 0 ] && echo "install-deps: all cases passed" || echo "install-deps: $fails failed"
[ "$fails" -eq 0 ]
