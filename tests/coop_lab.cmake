# SPDX-License-Identifier: Apache-2.0
# coop_lab.cmake — `cupat lab coop` (lab/coop): the table and the host
# references on the CPU; every experiment's rows checked on the GPU (cuda).
cupat_test(test_coop_lab test_coop_lab.c)
target_link_libraries(test_coop_lab PRIVATE cupat_lab)
cupat_cli_test(lab_coop_list "lab coop --list" RC 0 OUT "block.*tiles.*coalesced.*grid.*reduce.*iterate" LABELS lab)
cupat_cli_test(lab_coop_unknown "lab coop bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_coop_all "lab coop --reps 2" RC "0|1" ANY "coop lab: every check OK|need a GPU" LABELS lab)
