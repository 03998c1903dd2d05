# SPDX-License-Identifier: Apache-2.0
# cupat — the two commands a new user needs:
#   make run    build the `cupat` command, then a quick tour on the best backend:
#               `cupat info` and `cupat bench all --quick` (one small case each)
#   make test   build everything, then the whole CTest suite with one pass/fail count
# Also: make bench (the full sweep, `cupat bench all`, kept as JSON), make report
# (its charts: HTML, PNG, SVG; needs python3-matplotlib), make build,
# make install [PREFIX=/usr/local], make deps, make clean; and, for robustness
# (docs/robustness.md), make fuzz [FUZZ_SECONDS=60] (every file reader under
# libFuzzer with clang's sanitizers, FUZZ_SECONDS each) and make memcheck (the
# bad-input tests under valgrind).
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CUDA_HOME ?= /usr/local/cuda
NVCC    ?= $(shell command -v nvcc 2>/dev/null || echo $(CUDA_HOME)/bin/nvcc)
CMAKE_FLAGS ?=
CUPAT   := $(BUILD)/tools/cupat/cupat
# Without nvcc: the CPU backend alone (CUPAT_CUDA=OFF: no CUDA toolkit to
# build, no libcudart to run; the lab, the bench and the cupat command need
# the toolkit for now).
HAVE_NVCC := $(shell test -x "$(NVCC)" && echo 1)
CUDA_CMAKE := $(if $(HAVE_NVCC),-DCMAKE_CUDA_COMPILER=$(NVCC),-DCUPAT_CUDA=OFF)

.PHONY: all build cli deps run bench report test install clean fuzz memcheck

all: build

deps:
	@NVCC="$(NVCC)" scripts/install-deps

$(BUILD)/CMakeCache.txt:
	@NVCC="$(NVCC)" scripts/install-deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CUDA_CMAKE) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Only what each command needs: `run` and `bench` build the CLI alone (not the
# tests), `install` what it installs.
cli: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target cupat_cli

ifeq ($(HAVE_NVCC),1)
run: cli
	$(CUPAT) info
	$(CUPAT) bench all --quick
else
run: build
	@echo "make run: no nvcc, so this build is the library's CPU backend alone (no cupat command yet);"
	@echo "  'make test' runs its tests, 'make install' installs it, examples/ shows its use"
endif

# `make bench` keeps its results as JSON (needs cJSON: make deps installs it);
# `make report` draws them (or RESULTS=file.json ...) into $(BUILD)/report/.
BENCH_JSON ?= $(BUILD)/bench.json
bench: cli
	$(CUPAT) bench all --json $(BENCH_JSON)

report: cli
	$(CUPAT) report $(or $(RESULTS),$(BENCH_JSON)) --out $(BUILD)/report

test: build
	@scripts/run-tests $(BUILD) $(JOBS)

install: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target cupat cupat_static $(if $(HAVE_NVCC),cupat_cli)
	cmake --install $(BUILD) --prefix $(PREFIX)

FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) CUDA_HOME=$(CUDA_HOME) scripts/fuzz

memcheck: build
	scripts/memcheck $(BUILD)

clean:
	rm -rf $(BUILD)
