# SPDX-License-Identifier: Apache-2.0
# `cupat bench --json FILE` / `--csv FILE`, FILE '-' (issue 18.6): the data
# alone on stdout, the tables on stderr; no file named '-'.
# Where the build has no cJSON the --json tests are registered as skipped
# (${CUPAT_NEEDS_CJSON}: --json is refused before anything else is looked
# at), and bench_json_needs_cjson checks that refusal.
cupat_cli_test(bench_json_stdout "bench vadd --backend cpu --n 1024 --reps 3 --json -" RC 0
               OUT "^{\n.*\"tool\":[ \t]*\"cupat bench\".*\"pattern\":[ \t]*\"vadd\".*}\n$"
               ERR "vadd +n=2\\^10 f32.*1 table, [0-9]+ rows, 0 failed" ${CUPAT_NEEDS_CJSON})
cupat_cli_test(bench_csv_stdout "bench vadd --backend cpu --n 1024 --reps 3 --csv -" RC 0
               OUT "^date,commit,device,[^\n]*\n([^\n]*,vadd,n=2\\^10 f32,[^\n]*\n)+$"
               ERR "vadd +n=2\\^10 f32.*1 table, [0-9]+ rows, 0 failed")
cupat_cli_test(bench_json_csv_stdout "bench vadd --backend cpu --json - --csv -" RC 2
               ERR "cannot both go to stdout" ERR_LINES 1 ${CUPAT_NEEDS_CJSON})
if(CUPAT_NEEDS_CJSON)
  cupat_cli_test(bench_json_needs_cjson "bench vadd --backend cpu --n 1024 --json x.json" RC 2
                 ERR "--json needs cJSON, which this build lacks" ERR_LINES 1)
endif()
# --csv FILE that cannot be written: refused before the run, the user's file
# left as it was (a read-only file keeps its contents; a folder stays).
cupat_cli_test(bench_csv_keeps_readonly "bench vadd --backend cpu --n 1024 --csv ${CMAKE_CURRENT_BINARY_DIR}/bench-readonly/b.csv"
               RC 2 ERR "--csv [^\n]*bench-readonly/b\\.csv: cannot write: Permission denied\n$" ERR_LINES 1
               KEEP_FILE ${CMAKE_CURRENT_BINARY_DIR}/bench-readonly/b.csv READ_ONLY)
cupat_cli_test(bench_csv_keeps_dir "bench vadd --backend cpu --n 1024 --csv ${CMAKE_CURRENT_BINARY_DIR}/bench-a-folder"
               RC 2 ERR "--csv [^\n]*bench-a-folder: cannot write: Is a directory\n$" ERR_LINES 1
               KEEP_DIR ${CMAKE_CURRENT_BINARY_DIR}/bench-a-folder)
