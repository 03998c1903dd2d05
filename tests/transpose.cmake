# SPDX-License-Identifier: Apache-2.0
cupat_test(test_transpose test_transpose.c)

# The bench and lab commands of this area (tests/CMakeLists.txt's cupat_cli_test).
cupat_cli_test(bench_transpose_list "bench transpose --list" RC 0
               OUT "vec8_2x2 +cuda +default.*cpu +cpu +default" ERR_LINES 0)
cupat_cli_test(bench_transpose_cpu "bench transpose --backend cpu --n 96x65" RC 0
               OUT "transpose +96x65 f32.*cpu .* ok .*transpose +96x65 f64")
cupat_cli_test(bench_stencil1d_cpu "bench stencil1d --backend cpu --n 4099" RC 0
               OUT "stencil1d +n=4099 f32, radius 4.*cpu .* ok .*radius 8")
cupat_cli_test(lab_no_lab "lab" RC 2 ERR "which lab" ERR_LINES 1)
cupat_cli_test(lab_help "lab access --help" RC 0 OUT "readOffset.*--ncu")
cupat_cli_test(lab_unknown "lab access bogus" RC 2 ERR "unknown experiment 'bogus'"
               ERR_LINES 1)
# Without a device: exit 1 and one line saying why; with one: the tables.
cupat_cli_test(lab_copy "lab access copy --n 2^20 --reps 3" RC "0|1"
               ANY "copyKernelVersion3.*ok|need a GPU")
# Every experiment, small: every row checked, and no row may FAIL (a failed
# row prints a "! name: FAIL" line, so the whole output must hold no '!').
cupat_cli_test(lab_all "lab access --n 2^16 --reps 2" RC "0|1"
               ANY "^[^!]*zero-copy [^!]* ok [^!]*$|need a GPU")
