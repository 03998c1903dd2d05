# SPDX-License-Identifier: Apache-2.0
# hist.cmake — `cupat hist IMAGE` (tools/cupat/cmd_hist.c) on the committed
# images (tests/data). The expected figures are worked out by hand from the
# files' samples (tests/data/README.md):
#  bitmap.pbm  6x2, 1 is black: six 0s and six 255s
#  plain.pgm   maxval 15, v * 17: 0 85 170 255 51 136 221 34 102 187 0 85
#  rgba.pam    3x2 RGBA: R 0 80 160 5 85 165, G = R + 10, B = R + 20, A = R + 30
# Mean of the values; median the lower one (the least value with half the
# samples at or below it).
set(H_DATA ${PROJECT_SOURCE_DIR}/tests/data)
set(H_OUT ${CMAKE_CURRENT_BINARY_DIR}/hist_cli)
file(MAKE_DIRECTORY ${H_OUT})
macro(hist_cli_test name args)
  cupat_cli_test(hist.${name} "${args}" LABELS hist ${ARGN})
endmacro()

hist_cli_test(help "hist --help" RC 0 OUT "Usage: cupat hist IMAGE.*--channels.*--bins.*--json" ERR_LINES 0)
hist_cli_test(help_word "help hist" RC 0 OUT "Usage: cupat hist")
hist_cli_test(listed "--help" RC 0 OUT "hist +histogram of each channel")

hist_cli_test(gray "hist ${H_DATA}/bitmap.pbm --backend cpu" RC 0 ERR_LINES 0
              OUT "^hist: [^\n]*bitmap\\.pbm: 6x2, 1 channel, 256 bins .the file: 1 channel., cpu backend\n +gray +count 12 +occupied bins 0\\.\\.255 of 256 +mean 127\\.50 +median 0\n +0 \\|@ {30}@\\| 255\n$")
hist_cli_test(bins4 "hist ${H_DATA}/plain.pgm --bins 4 --backend cpu" RC 0
              OUT "4x3, 1 channel, 4 bins.*gray +count 12 +occupied bins 0\\.\\.3 of 4 +mean 110\\.50 +median 85\n +0 \\|@##\\+\\| 255\n$")
hist_cli_test(rgba "hist ${H_DATA}/rgba.pam --backend cpu" RC 0
              OUT "3x2, 4 channels, 256 bins.*R +count 6 +occupied bins 0\\.\\.165 of 256 +mean 82\\.50 +median 80\n.*G +count 6 +occupied bins 10\\.\\.175 of 256 +mean 92\\.50 +median 90\n.*B +count 6 +occupied bins 20\\.\\.185 of 256 +mean 102\\.50 +median 100\n.*A +count 6 +occupied bins 30\\.\\.195 of 256 +mean 112\\.50 +median 110\n")
# --channels 3 of an RGBA file: R, G, B and no alpha row (the output ends with B's bars).
hist_cli_test(rgba_as_rgb "hist ${H_DATA}/rgba.pam --channels 3 --bins 16 --backend cpu" RC 0
              OUT "3x2, 3 channels, 16 bins .the file: 4 channels..*R +count 6 +occupied bins 0\\.\\.10 of 16 [^\n]*\n[^\n]*\n +G [^\n]*\n[^\n]*\n +B [^\n]*\n[^\n]*\n$")
hist_cli_test(rgba_as_one "hist ${H_DATA}/rgba.pam --channels 1 --backend cpu" RC 0
              OUT "3x2, 1 channel, 256 bins.*all +count 24 +occupied bins 0\\.\\.195 of 256 +mean 97\\.50 +median 95\n")
hist_cli_test(stdin "hist - --backend cpu" STDIN_PIPE ${H_DATA}/camera.pgm RC 0
              OUT "^hist: .stdin.: 97x67, 1 channel.*gray +count 6499 ")
hist_cli_test(rgb_ppm "hist ${H_DATA}/astronaut.ppm" RC 0
              OUT "121x91, 3 channels, 256 bins.*R +count 11011 .*G +count 11011 .*B +count 11011 ")
# The CUDA backend: the same summary, or (no device) exit 1 with one line.
hist_cli_test(cuda "hist ${H_DATA}/rgba.pam --backend cuda" RC "0|1"
              ANY "cuda backend\n +R +count 6 +occupied bins 0\\.\\.165 of 256 +mean 82\\.50 +median 80|cupat: .*\n$")

# Bad options: exit 2, one line.
hist_cli_test(no_image "hist" RC 2 ERR "needs an IMAGE" ERR_LINES 1)
hist_cli_test(two_images "hist a.pgm b.pgm" RC 2 ERR "'b.pgm'" ERR_LINES 1)
hist_cli_test(bad_channels "hist a.pgm --channels 2" RC 2 ERR "--channels '2': auto, 1, 3 or 4" ERR_LINES 1)
hist_cli_test(bins_zero "hist a.pgm --bins 0" RC 2 ERR "--bins" ERR_LINES 1)
hist_cli_test(bins_many "hist a.pgm --bins 257" RC 2 ERR "--bins" ERR_LINES 1)
hist_cli_test(bad_backend "hist a.pgm --backend gpu" RC 2 ERR "'gpu'" ERR_LINES 1)
hist_cli_test(unknown_option "hist a.pgm --frob" RC 2 ERR "unknown option" ERR_LINES 1)
hist_cli_test(json_no_value "hist a.pgm --json" RC 2 ERR "--json" ERR_LINES 1)
# Files that cannot be read, or do not have the channels asked for: exit 1.
hist_cli_test(missing "hist ${H_OUT}/no-such.pgm --backend cpu" RC 1 ERR "^cupat: .*no-such\\.pgm.*No such file" ERR_LINES 1)
hist_cli_test(truncated "hist ${H_DATA}/truncated.pgm --backend cpu" RC 1 ERR "^cupat: .*truncated\\.pgm" ERR_LINES 1)
hist_cli_test(bad_header "hist ${H_DATA}/badheader.ppm --backend cpu" RC 1 ERR "^cupat: .*badheader\\.ppm" ERR_LINES 1)
hist_cli_test(not_an_image "hist ${H_DATA}/README.md --backend cpu" RC 1 ERR "^cupat: " ERR_LINES 1)
hist_cli_test(gray_as_rgb "hist ${H_DATA}/camera.pgm --channels 3 --backend cpu" RC 1
              ERR "--channels 3: '.*camera\\.pgm' has 1 channel\n$" ERR_LINES 1)
hist_cli_test(rgb_as_rgba "hist ${H_DATA}/astronaut.ppm --channels 4 --backend cpu" RC 1
              ERR "--channels 4: '.*astronaut\\.ppm' has 3 channels" ERR_LINES 1)

# --json: where the build has no cJSON these are registered as skipped
# (${CUPAT_NEEDS_CJSON}), and json_needs_cjson checks the refusal instead.
# The JSON on stdout, the summary on stderr; the file the report reads.
hist_cli_test(json_stdout "hist ${H_DATA}/rgba.pam --json - --backend cpu" RC 0
              OUT "\"tool\":[ \t]*\"cupat hist\".*\"backend\":[ \t]*\"cpu\".*\"case\":[ \t]*\"3x2, 4 channels, 256 bins\".*\"kind\":[ \t]*\"histogram\".*\"name\":[ \t]*\"R\",[ \t\n]*\"counts\":[ \t]*.1, 0, 0, 0, 0, 1, 0"
              ERR "^hist: .*R +count 6" ${CUPAT_NEEDS_CJSON})
hist_cli_test(json_unwritable "hist ${H_DATA}/bitmap.pbm --json /nonexistent-cupat-dir/h.json --backend cpu"
              RC 1 ERR "--json /nonexistent-cupat-dir/h\\.json: cannot write" ${CUPAT_NEEDS_CJSON})
# A --json FILE that cannot be written is the user's: refused, never removed
# (issue 6). A read-only file keeps its contents; an empty folder stays.
hist_cli_test(json_keeps_readonly "hist ${H_DATA}/bitmap.pbm --json ${H_OUT}/readonly/h.json --backend cpu"
              RC 1 ERR "--json [^\n]*readonly/h\\.json: cannot write: Permission denied\n$" ERR_LINES 1
              KEEP_FILE ${H_OUT}/readonly/h.json READ_ONLY ${CUPAT_NEEDS_CJSON})
hist_cli_test(json_keeps_dir "hist ${H_DATA}/bitmap.pbm --json ${H_OUT}/a-folder --backend cpu"
              RC 1 ERR "--json [^\n]*a-folder: cannot write: Is a directory\n$" ERR_LINES 1
              KEEP_DIR ${H_OUT}/a-folder ${CUPAT_NEEDS_CJSON})
if(CUPAT_NEEDS_CJSON)
  hist_cli_test(json_needs_cjson "hist ${H_DATA}/bitmap.pbm --json x.json --backend cpu" RC 2
                ERR "needs cJSON" ERR_LINES 1)
endif()
