# SPDX-License-Identifier: Apache-2.0
# `cupat bench --quick`, the second half of `make run`: one small case per
# pattern (each pattern's --quick size in bench/bench_patterns.c; one missing
# is a line on stderr, so ERR_LINES 0 holds every pattern to having one).
cupat_cli_test(bench_quick_gemm "bench gemm --quick --backend cpu" RC 0
               OUT "--quick: one small case.*gemm +256x256x256 f32.* ok .*1 table, [0-9]+ rows, 0 failed"
               ERR_LINES 0)
cupat_cli_test(bench_quick_n "bench vadd --quick --backend cpu --n 1000" RC 0
               OUT "vadd +n=1000 f32.*1 table, [0-9]+ rows, 0 failed" ERR_LINES 0)
cupat_cli_test(bench_quick_all "bench all --quick --backend cpu" RC 0
               OUT "--quick: one small case.*vadd +n=2\\^22 f32.*gemm +256x256x256.* 0 failed"
               ERR_LINES 0)
# The longest CPU test: COST starts it first in a clean tree (no CTest cost
# data yet), so `ctest -j` does not end waiting on it alone.
set_tests_properties(cli.bench_quick_all PROPERTIES TIMEOUT 600 COST 100)
