# SPDX-License-Identifier: Apache-2.0
# cluster_lab.cmake — `cupat lab cluster` (lab/cluster): the table and the
# host models on the CPU; every experiment's rows checked on the GPU (cuda).
cupat_test(test_cluster_lab test_cluster_lab.c)
target_link_libraries(test_cluster_lab PRIVATE cupat_lab)
cupat_cli_test(lab_cluster_list "lab cluster --list" RC 0
               OUT "launch.*api.*sizes.*occupancy.*dsmem.*latency.*bandwidth.*histogram" LABELS lab)
cupat_cli_test(lab_cluster_unknown "lab cluster bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_cluster_all "lab cluster --reps 2" RC "0|1" ANY "cluster lab: every check OK|need a GPU" LABELS lab)
