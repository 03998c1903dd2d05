# SPDX-License-Identifier: Apache-2.0
# async_lab.cmake — `cupat lab async` (lab/async): the table and the host
# models on the CPU; every experiment's rows checked on the GPU (cuda).
cupat_test(test_async_lab test_async_lab.c)
target_link_libraries(test_async_lab PRIVATE cupat_lab)
cupat_cli_test(lab_async_list "lab async --list" RC 0
               OUT "barrier.*warpspec.*memcpy.*align.*entangle.*pipeline.*bulk.*swizzle.*tensor" LABELS lab)
cupat_cli_test(lab_async_unknown "lab async bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_async_all "lab async --reps 2" RC "0|1" ANY "async lab: every check OK|need a GPU" LABELS lab)
