# SPDX-License-Identifier: Apache-2.0
# CUDA kernels only: no CPU registration (it could only skip).
set(CUPAT_TEST_BACKENDS cuda)
cupat_test(test_access test_access.c)
unset(CUPAT_TEST_BACKENDS)
# The kernels are the lab's (lab/access), not the library's.
target_link_libraries(test_access PRIVATE cupat_lab)
target_include_directories(test_access PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
# `cupat lab --help`: the labs, not `lab access`'s help (which it printed).
# (`lab access --help` is transpose.cmake's cli.lab_help.)
cupat_cli_test(lab_topics_help "lab --help" RC 0
               OUT "^Usage: cupat lab TOPIC.*\n  access .*\n  warp .*\n  multi .*lab TOPIC --help"
               ERR_LINES 0 LABELS lab)
