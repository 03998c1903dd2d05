# cupat — the two commands a new user needs:
#   make run    build, then `cupat info` and `cupat bench all` on the best backend
#   make test   build, then the whole CTest suite with one pass/fail count
# Also: make build, make install [PREFIX=/usr/local], make deps, make clean.
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CUDA_HOME ?= /usr/local/cuda
NVCC    ?= $(shell command -v nvcc 2>/dev/null || echo $(CUDA_HOME)/bin/nvcc)
CMAKE_FLAGS ?=
CUPAT   := $(BUILD)/tools/cupat/cupat

.PHONY: all build deps run test install clean

all: build

deps:
	@NVCC="$(NVCC)" scripts/install-deps

$(BUILD)/CMakeCache.txt:
	@NVCC="$(NVCC)" scripts/install-deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=$(NVCC) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(CUPAT) info
	$(CUPAT) bench all

test: build
	@scripts/run-tests $(BUILD) $(JOBS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
