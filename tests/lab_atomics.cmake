# SPDX-License-Identifier: Apache-2.0
# lab_atomics.cmake — `cupat lab atomics` (lab/atomics): the host model and the
# bad arguments (cpu), the race, the custom atomics and the rates on the GPU (cuda).
cupat_test(test_lab_atomics test_lab_atomics.c)
target_link_libraries(test_lab_atomics PRIVATE cupat_lab)
cupat_cli_test(lab_atomics_help "lab atomics --help" RC 0 OUT "race.*custom.*contention.*--expected"
               LABELS lab)
cupat_cli_test(lab_atomics_unknown "lab atomics bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1
               LABELS lab)
cupat_cli_test(lab_atomics_bad_iters "lab atomics --iters 0" RC 2 ERR "--iters" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_atomics_expected_race "lab atomics race --expected" RC 2 ERR "custom' only" ERR_LINES 1
               LABELS lab)
cupat_cli_test(lab_atomics_which "lab" RC 2 ERR "lab atomics" ERR_LINES 1 LABELS lab)
# Without a GPU: the host's answers (-0 vs +0, the NaN rule, ties to the lowest index).
cupat_cli_test(lab_atomics_expected "lab atomics custom --expected" RC 0
               OUT "-0 and \\+0 only\n +host: max 0 +\\(00000000\\) +min -0 +\\(80000000\\).*every value NaN\n +host: max nan +\\(7fc00000\\).*argmax empty.*argmax x\\[6\\] = 6"
               LABELS lab)
# Every experiment: with a device every check OK (a wrong count exits 1 and
# fails the ANY match); without one, exit 1 and one line saying why.
cupat_cli_test(lab_atomics_all "lab atomics --reps 2 --iters 4" RC "0|1"
               ANY "atomics lab: every check OK|need a GPU" LABELS lab)
