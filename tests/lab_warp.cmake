# SPDX-License-Identifier: Apache-2.0
# lab_warp.cmake — `cupat lab warp` (lab/warp): the model of the CUDA rules
# against the book's lines (cpu), every experiment on the GPU (cuda).
cupat_test(test_lab_warp test_lab_warp.c)
target_link_libraries(test_lab_warp PRIVATE cupat_lab)
cupat_cli_test(lab_warp_help "lab warp --help" RC 0 OUT "broadcast.*swap.*match.*--expected"
               LABELS lab)
cupat_cli_test(lab_warp_unknown "lab warp bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1
               LABELS lab)
# Without a GPU: the expected lanes and the book's lines, the butterfly typo noted.
cupat_cli_test(lab_warp_expected "lab warp xor swap --expected" RC 0
               OUT "expected +1 0 3 2 5 4.*book +1 0 2 3 5 4.*typo.*expected +7 1 2 3 4 5 6 0 8 9 10 15"
               LABELS lab)
# Every experiment: with a device every row OK (a MISMATCH exits 1 and fails
# the ANY match); without one, exit 1 and one line saying why.
cupat_cli_test(lab_warp_all "lab warp" RC "0|1" ANY "warp lab: every row OK|need a GPU" LABELS lab)
