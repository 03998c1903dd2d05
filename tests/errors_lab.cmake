# SPDX-License-Identifier: Apache-2.0
# errors_lab.cmake — `cupat lab errors` (lab/errors): the host models, the
# verdict rules and the child runner on the CPU; every case buggy and fixed
# on the GPU (cuda; the sticky ones in a child process).
cupat_test(test_errors_lab test_errors_lab.c)
target_link_libraries(test_errors_lab PRIVATE cupat_lab)
cupat_cli_test(lab_errors_help "lab errors --help" RC 0
               OUT "rw-race.*missing-barrier.*block-transpose.*divergent-barrier.*oob.*bytes.*launch-config.*resources.*async"
               LABELS lab)
cupat_cli_test(lab_errors_list "lab errors --list" RC 0 OUT "racecheck.*synccheck.*memcheck.*initcheck.*child process" LABELS lab)
cupat_cli_test(lab_errors_unknown "lab errors --case bogus" RC 2 ERR "unknown case 'bogus'" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_errors_buggy_alone "lab errors --buggy" RC 2 ERR "go with --case" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_errors_all "lab errors" RC "0|1" ANY "errors lab: every case as expected|need a GPU" LABELS lab)
cupat_cli_test(lab_errors_json_case "lab errors --case bytes --json x.json" RC 2 ERR "--json goes with the full run" ERR_LINES 1
               LABELS lab)
