# SPDX-License-Identifier: Apache-2.0
# exec_lab.cmake — `cupat lab exec` (lab/exec): the host models and the bad
# arguments (cpu); every experiment's output against its host model, the
# register cliff and occupancy APIs against the calculator, and dynamic
# parallelism (cuda).
cupat_test(test_exec_lab test_exec_lab.c)
target_link_libraries(test_exec_lab PRIVATE cupat_lab)
# Alone on the GPU: its timing checks, and its device launches (the storm
# past the pending-launch limit, which can stall the device runtime, is
# opt-in: CUPAT_TEST_CDP_PAST_LIMIT=1; docs/exec-model.md).
if(TEST test_exec_lab.cuda)
  set_tests_properties(test_exec_lab.cuda PROPERTIES RUN_SERIAL TRUE)
endif()
cupat_cli_test(lab_exec_help "lab exec --help" RC 0
               OUT "diverge.*warps.*place.*sync.*latency.*ilp.*mlp.*cliff.*occupancy.*gemm.*cdp.*throughput.*--json.*--past-limit.*branch_targets"
               LABELS lab)
cupat_cli_test(lab_exec_unknown "lab exec bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_exec_bad_reps "lab exec --reps 0" RC 2 ERR "--reps" ERR_LINES 1 LABELS lab)
# --past-limit is an option (not an experiment), and the help names it
cupat_cli_test(lab_exec_past_limit_option "lab exec --past-limit bogus" RC 2 ERR "unknown experiment 'bogus'"
               ERR_LINES 1 LABELS lab)
# Short experiments: with a device every check OK (a wrong row exits 1 and
# fails the ANY match); without one, exit 1 and one line saying why.
cupat_cli_test(lab_exec_quick "lab exec warps sync place --reps 1" RC "0|1"
               ANY "exec lab: every check OK|need a GPU" LABELS lab)
