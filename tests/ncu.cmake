# SPDX-License-Identifier: Apache-2.0
# ncu.cmake — `cupat bench --ncu` (bench/ncu.c, docs/report.md) without a GPU
# or Nsight Compute: ncu's CSV read from hand-written samples (sums, weighted
# averages, the limiter, malformed CSV, an empty profile) and a stand-in ncu
# (a shell script) run as the bench runs the real one; then the command's
# refusals: no ncu, the CPU backend, a bad --ncu-child.
set(CUPAT_TEST_BACKENDS cpu)
cupat_test(test_ncu_parse test_ncu_parse.c ${PROJECT_SOURCE_DIR}/bench/ncu.c)
unset(CUPAT_TEST_BACKENDS)
target_include_directories(test_ncu_parse PRIVATE ${PROJECT_SOURCE_DIR}/bench)

cupat_cli_test(bench_ncu_missing "bench vadd --ncu --backend cpu --n 1024" RC 1
               ERR "--ncu needs Nsight Compute \\(ncu\\); looked at: \\$CUPAT_NCU=/nonexistent/ncu"
               ERR_LINES 1 LABELS bench)
set_tests_properties(cli.bench_ncu_missing PROPERTIES ENVIRONMENT "CUPAT_NCU=/nonexistent/ncu")
cupat_cli_test(bench_ncu_cpu "bench vadd --ncu --backend cpu --n 1024" RC 1
               ERR "--ncu profiles GPU kernels: it needs the CUDA backend \\(this run is on cpu\\)"
               ERR_LINES 1 LABELS bench)
set_tests_properties(cli.bench_ncu_cpu PROPERTIES ENVIRONMENT "CUPAT_NCU=/bin/true")
cupat_cli_test(bench_ncu_child_bad "bench vadd --ncu-child 3" RC 2
               ERR "--ncu-child '3' is not TABLE:ROW:NAME" ERR_LINES 1 LABELS bench)
cupat_cli_test(bench_ncu_and_child "bench vadd --ncu --ncu-child 0:0:cpu" RC 2
               ERR "--ncu and --ncu-child do not go together" ERR_LINES 1 LABELS bench)
