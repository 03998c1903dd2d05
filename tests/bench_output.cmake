# `cupat bench --json FILE` / `--csv FILE`, FILE '-' (issue 18.6): the data
# alone on stdout, the tables on stderr; no file named '-'.
if(CJSON_INCLUDE_DIR AND CJSON_LIBRARY)
  cupat_cli_test(bench_json_stdout "bench vadd --backend cpu --n 1024 --reps 3 --json -" RC 0
                 OUT "^{\n.*\"tool\":[ \t]*\"cupat bench\".*\"pattern\":[ \t]*\"vadd\".*}\n$"
                 ERR "vadd +n=2\\^10 f32.*1 table, [0-9]+ rows, 0 failed")
endif()
cupat_cli_test(bench_csv_stdout "bench vadd --backend cpu --n 1024 --reps 3 --csv -" RC 0
               OUT "^date,commit,device,[^\n]*\n([^\n]*,vadd,n=2\\^10 f32,[^\n]*\n)+$"
               ERR "vadd +n=2\\^10 f32.*1 table, [0-9]+ rows, 0 failed")
cupat_cli_test(bench_json_csv_stdout "bench vadd --backend cpu --json - --csv -" RC 2
               ERR "cannot both go to stdout" ERR_LINES 1)
