# SPDX-License-Identifier: Apache-2.0
# memory_lab.cmake — `cupat lab memory` (lab/memory): the table and the host
# models on the CPU; every experiment's rows checked on the GPU (cuda).
cupat_test(test_memory_lab test_memory_lab.c)
target_link_libraries(test_memory_lab PRIVATE cupat_lab)
cupat_cli_test(lab_memory_list "lab memory --list" RC 0
               OUT "cache.*stride.*symbols.*uva.*banks.*fence.*um.*segment.*debug.*oversub.*carve.*latency.*cachesize.*split"
               LABELS lab)
cupat_cli_test(lab_memory_model "lab memory --model" RC 0
               OUT "16 GB/s.*4.8 %.*stride  1: 1\n.*stride  2: 2\n.*stride 32: 32\n.*stride 33: 1\n.*broadcast: 1\n.*multicast \\(4 lanes a word\\): 1\n.*8-byte words, stride 1: 2\n.*8-byte words, stride 2: 4"
               LABELS lab)
cupat_cli_test(lab_memory_model_carve "lab memory --model" RC 0
               OUT "cc 7.0: 0% -> 0 10% -> 16 25% -> 32 40% -> 64 50% -> 64 75% -> 96 100% -> 96\n.*cc 8.0: [^\n]* 50% -> 100 .*cc 9.0: 0% -> 0 10% -> 32 25% -> 64 40% -> 100 50% -> 132 75% -> 196 100% -> 228\n.*starts rounded up: int 0 float 132 char 392 double 432, 1464 bytes: aligned\n  packed: int 0 float 132 char 392 double 429, 1461 bytes: misaligned double"
               LABELS lab)
cupat_cli_test(lab_memory_um_free_bad "lab memory oversub --um-free 1M" RC 2 ERR "--um-free 1M: at least 64M" ERR_LINES 1
               LABELS lab)
cupat_cli_test(lab_memory_unknown "lab memory bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_memory_all "lab memory --reps 2" RC "0|1" ANY "memory lab: every check OK|need a GPU" LABELS lab)
