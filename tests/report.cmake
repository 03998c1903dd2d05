# SPDX-License-Identifier: Apache-2.0
# report.cmake — `cupat report` (tools/report/cupat_report.py, docs/report.md).
# The drawing tests need a Python 3 with matplotlib (Debian: python3-matplotlib;
# CI installs it): found here at configure time and handed to the command as
# CUPAT_PYTHON; without one, report.draw* are skipped (exit 77), not passed.
set(CUPAT_REPORT_PYTHON "")
foreach(cand python3 /usr/bin/python3)
  execute_process(COMMAND ${cand} -c "import matplotlib"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(CUPAT_REPORT_PYTHON ${cand})
    break()
  endif()
endforeach()
find_program(CUPAT_ANY_PYTHON NAMES python3)
set(py ${CUPAT_REPORT_PYTHON})
if(NOT py)
  set(py ${CUPAT_ANY_PYTHON})
endif()
if(NOT py)
  message(WARNING "no python3: the report tests are skipped")
endif()
set(needs_matplotlib "")
if(NOT CUPAT_REPORT_PYTHON)
  set(needs_matplotlib SKIP "no Python with matplotlib was found at configure time (Debian: python3-matplotlib)")
endif()

set(check ${PROJECT_SOURCE_DIR}/tests/report_check.py)
set(committed ${PROJECT_SOURCE_DIR}/bench/results/2026-11-22-h100.json)
set(kinds ${PROJECT_SOURCE_DIR}/tests/data/report/kinds.json)
# rows with `cupat bench --ncu` profiles (synthetic): the ncu chart and columns
set(ncu_fixture ${PROJECT_SOURCE_DIR}/tests/data/report/ncu.json)
# tensor-core tables (ceiling "tensor": GFLOP/s against the measured tensor peak)
set(tensor_run ${PROJECT_SOURCE_DIR}/bench/results/2026-11-24-h100-labs/gemm_tc.json)
set(work ${CMAKE_CURRENT_BINARY_DIR}/report-tests)
set(report_env "")
if(CUPAT_REPORT_PYTHON)
  set(report_env "CUPAT_PYTHON=${CUPAT_REPORT_PYTHON}")
endif()
function(cupat_report_test name mode input)
  if(NOT py)
    cupat_skipped_test(report.${name} "no python3 was found at configure time (Debian: python3)"
                       LABELS "cli;report")
    return()
  endif()
  add_test(NAME report.${name}
           COMMAND ${py} ${check} $<TARGET_FILE:cupat_cli> ${mode} ${work}/${name} ${input})
  set_tests_properties(report.${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "cli;report"
                       TIMEOUT 600 ENVIRONMENT "${report_env}")
endfunction()
cupat_report_test(draw_committed draw ${committed})
cupat_report_test(draw_kinds draw ${kinds})
cupat_report_test(draw_ncu draw ${ncu_fixture})
cupat_report_test(draw_tensor draw ${tensor_run})
cupat_report_test(malformed malformed ${committed})
cupat_report_test(no_matplotlib noplot ${kinds})
cupat_report_test(no_python nopython ${kinds})

cupat_cli_test(report_no_args "report" RC 2 ERR "no results given" ERR_LINES 1 LABELS report)
cupat_cli_test(report_missing_file "report /nonexistent/results.json" RC 2
               ERR "/nonexistent/results.json: No such file or directory" ERR_LINES 1 LABELS report)
cupat_cli_test(report_unknown_option "report x.json --colour" RC 2 ERR "--colour" ERR_LINES 1
               LABELS report)
cupat_cli_test(report_help "report --help" RC 0 OUT "Usage: cupat report" LABELS report)
# `cupat hist --json` of a colour, a gray and an RGBA image, drawn: no
# ceilings in those files, so no roofline, one histogram chart each.
cupat_report_test(hist hist "${PROJECT_SOURCE_DIR}/tests/data/astronaut.ppm;${PROJECT_SOURCE_DIR}/tests/data/camera.pgm;${PROJECT_SOURCE_DIR}/tests/data/pngtest.pam")
# An --out DIR that holds files of the user's (issue 6): the report replaces
# only the page and the charts it draws; a file of another name in DIR/svg
# stays, unchanged.
cupat_cli_test(report_keeps_user_files "report ${kinds} --out ${work}/keeps --python ${CUPAT_REPORT_PYTHON}"
               RC 0 OUT "cupat report: [1-9][0-9]* charts, [^\n]*keeps/index\\.html\n$"
               KEEP_FILE ${work}/keeps/svg/mine.txt LABELS report ${needs_matplotlib})
