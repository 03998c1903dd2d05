# SPDX-License-Identifier: Apache-2.0
# bench.cmake — the benchmark's tables (bench_patterns.c, sizes.c) against the
# registry, and the --n memory check. Host-side logic: the CPU run covers it.
set(CUPAT_TEST_BACKENDS cpu)
cupat_test(test_bench test_bench.c)
unset(CUPAT_TEST_BACKENDS)
target_link_libraries(test_bench PRIVATE cupat_bench)

# Every registered pattern is benchmarked and its --n explained (issue 18.9):
# dot and gemv among them, in --help and in `bench all --list`.
cupat_cli_test(bench_help_sizes "bench --help" RC 0
               OUT "Patterns:.* dot .* gemv.*--n SIZE.*\n +dot +elements of x and of y.*\n +gemm +S: an S x S x S product; RxC: m = R, n = k = C.*\n +gemv +S:")
cupat_cli_test(bench_all_list_dot_gemv "bench all --list" RC 0
               OUT "\ndot +single_pass +cuda +default.*\ndot +openmp_compensated +cpu.*\ngemv +")
cupat_cli_test(bench_gemv_cpu "bench gemv --backend cpu --n 67x129 --reps 3" RC 0
               OUT "gemv +67x129 f32, op N.* ok .*gemv +67x129 f32, op T.* ok .*2 tables")
# A rung pinned for its technique runs as this backend's form (issue 18.7).
cupat_cli_test(bench_dot_compensated_cpu
               "bench dot --backend cpu --variant compensated --n 5000 --reps 3" RC 0
               ERR "rung 'compensated' runs on cuda; on cpu it is 'openmp_compensated'"
               OUT "f32 dot +n=5000.*openmp_compensated .* ok ")
# A --n the backend cannot hold is an argument error, refused before the
# ceilings are measured (issue 18.8: --n 4G was OOM-killed on a 24 GiB host).
cupat_cli_test(bench_n_too_big "bench vadd --backend cpu --n 2^40" RC 2
               ERR "--n 2\\^40: vadd needs about 24.0 TiB of host memory.*smaller --n" ERR_LINES 1)
cupat_cli_test(bench_n_2_62 "bench all --backend cpu --n 2^62" RC 2
               ERR "--n 2\\^62: vadd needs" ERR_LINES 1)
cupat_cli_test(bench_gemm_n_dims "bench gemm --backend cpu --n 2^40" RC 2
               ERR "gemm: m, n and k must be at most 2147483647" ERR_LINES 1)
# conv2d, conv2d_sep and stencil3d (issue 21): every table of each runs and
# checks on the CPU at a tiny size (odd shapes: edges on every side).
cupat_cli_test(bench_conv2d_cpu "bench conv2d --backend cpu --n 67x45 --reps 3" RC 0
               OUT "conv2d +67x45 f32 1 channel 5x5, zero border.* ok .*9x9.*u8 RGB box 17x17, clamp border.* ok .*u8 RGB Gaussian \\(NPP's weights\\) 5x5.* ok .*roofline .* ms = max.*5 tables")
cupat_cli_test(bench_conv2d_sep_cpu "bench conv2d_sep --backend cpu --n 67x45 --reps 3" RC 0
               OUT "conv2d_sep +67x45 f32 1 channel 5x5.* ok .*u8 RGB box 3x3.* ok .*4 tables")
cupat_cli_test(bench_stencil3d_cpu "bench stencil3d --backend cpu --n 5000 --reps 3" RC 0
               OUT "stencil3d +17\\^3 f32 7-point, one step.* ok .*17\\^3 f32 27-point.* ok .*8 steps \\(cupat_stencil3d_run\\).* ok .*3 tables")
