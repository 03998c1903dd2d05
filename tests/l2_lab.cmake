# SPDX-License-Identifier: Apache-2.0
# l2_lab.cmake — `cupat lab l2` (lab/l2): the table, the host models and the
# build rule on the CPU (the rule read from this test's own fatbins); every
# experiment's rows checked on the GPU (cuda).
cupat_test(test_l2_lab test_l2_lab.c)
target_link_libraries(test_l2_lab PRIVATE cupat_lab)
cupat_cli_test(lab_l2_list "lab l2 --list" RC 0
               OUT "setaside.*hitratio.*window.*reset.*launch.*features" LABELS lab)
cupat_cli_test(lab_l2_unknown "lab l2 bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_l2_all "lab l2 --reps 2" RC "0|1" ANY "l2 lab: every check OK|need a GPU" LABELS lab)
