# SPDX-License-Identifier: Apache-2.0
# streams.cmake — out-of-core streaming (src/stream, cupat_set_streaming):
# pinned host data in chunks over several streams, against the unstreamed
# calls, on both backends (the CPU runs the same chunks when a chunk size is
# set). `test_streams --backend cuda --large` (not registered: 32 GiB pinned)
# is the GPU machine's out-of-core measurement.
cupat_test(test_streams test_streams.c)
target_compile_options(test_streams PRIVATE -ffp-contract=off)

# `cupat lab streams` (lab/streams): arguments without a GPU; every
# experiment where a device is present (a failed check exits 1 and fails the
# ANY match), else exit 1 and one line saying why.
cupat_cli_test(lab_streams_help "lab streams --help" RC 0
               OUT "overlap.*falsedep.*nullstream.*priority.*events.*blocking.*graphs.*--connections"
               LABELS lab)
cupat_cli_test(lab_streams_unknown "lab streams bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1
               LABELS lab)
cupat_cli_test(lab_streams_bad_streams "lab streams --streams 0" RC 2 ERR "--streams" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_streams_bad_spin "lab streams --spin-ms 0" RC 2 ERR "--spin-ms" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_streams_bad_bytes "lab streams --bytes 4K" RC 2 ERR "1 MiB to 16 GiB" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_streams_connections_other "lab streams overlap --connections 4" RC 2
               ERR "'falsedep' only" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_streams_all "lab streams --reps 2 --bytes 8M --spin-ms 0.5" RC "0|1"
               ANY "streams lab: every check OK|need a GPU" LABELS lab)

# The lab's host side: report, Gantt chart, JSON, stamp arithmetic, and every
# experiment's bad arguments (cpu: refused; cuda: each option out of range).
cupat_test(test_streams_lab test_streams_lab.c)
target_link_libraries(test_streams_lab PRIVATE cupat_lab)
target_include_directories(test_streams_lab PRIVATE ${PROJECT_SOURCE_DIR}/src/core ${PROJECT_SOURCE_DIR}/src)
find_program(CUPAT_STREAMS_PYTHON NAMES python3)
if(CUPAT_STREAMS_PYTHON)
  # the JSON the lab writes parses, with the escapes and nulls where expected
  add_test(NAME streams_lab.json
           COMMAND ${CUPAT_STREAMS_PYTHON} -c
             "import json, subprocess, sys, tempfile; p = tempfile.mktemp(suffix='.json'); subprocess.run([sys.argv[1], '--backend', 'cpu', '--json', p], check=True, stdout=subprocess.DEVNULL); d = json.load(open(p)); t = d['tables'][0]; assert d['lab'] == 'streams' and t['title'] == 'a \"quoted\" title' and t['rows'][1]['values'] == [None, None] and d['timelines'][0]['spans'][3]['kind'] == 'D' and d['children'][0]['lab'] == 'streams', d"
             $<TARGET_FILE:test_streams_lab>)
  set_tests_properties(streams_lab.json PROPERTIES LABELS "cpu;lab")
else()
  cupat_skipped_test(streams_lab.json "no python3 was found at configure time (Debian: python3)" LABELS "cpu;lab")
endif()
