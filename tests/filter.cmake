# SPDX-License-Identifier: Apache-2.0
# filter.cmake — `cupat filter`: arguments, the kernel file reader (malformed
# files refused with the line named), and real filters on the committed
# images (tests/data) on the CPU backend; the CUDA runs pass or report one
# line where no device is present.
set(FLT_DATA ${PROJECT_SOURCE_DIR}/tests/data)
set(FLT_OUT ${CMAKE_CURRENT_BINARY_DIR}/filter_cli)
file(MAKE_DIRECTORY ${FLT_OUT})
macro(filter_cli_test name args)
  cupat_cli_test(filter.${name} "${args}" LABELS image ${ARGN})
endmacro()

filter_cli_test(help "filter --help" RC 0 OUT "Usage: cupat filter IN OUT.*--kernel FILE" ERR_LINES 0)
filter_cli_test(no_filter "filter a.ppm b.ppm" RC 2 ERR "needs a filter" ERR_LINES 1)
filter_cli_test(two_filters "filter a.ppm b.ppm --sobel --sharpen" RC 2 ERR "one filter at a time" ERR_LINES 1)
filter_cli_test(even_gaussian "filter a.ppm b.ppm --gaussian 4" RC 2 ERR "must be odd" ERR_LINES 1)
filter_cli_test(huge_box "filter a.ppm b.ppm --box 33" RC 2 ERR "--box" ERR_LINES 1)
filter_cli_test(one_path "filter a.ppm --sobel" RC 2 ERR "IN and OUT" ERR_LINES 1)
filter_cli_test(unknown "filter a.ppm b.ppm --frob" RC 2 ERR "unknown option" ERR_LINES 1)

set(K ${FLT_DATA}/kernels)
filter_cli_test(kernel_short_row "filter a.ppm b.ppm --kernel ${K}/short_row.txt"
                RC 2 ERR "short_row.txt:3: row 2 has 2 numbers, want 3" ERR_LINES 1)
filter_cli_test(kernel_even "filter a.ppm b.ppm --kernel ${K}/even.txt"
                RC 2 ERR "even.txt:1: expected the size" ERR_LINES 1)
filter_cli_test(kernel_nan "filter a.ppm b.ppm --kernel ${K}/nan.txt"
                RC 2 ERR "nan.txt:2: not a number" ERR_LINES 1)
filter_cli_test(kernel_extra_row "filter a.ppm b.ppm --kernel ${K}/extra_row.txt"
                RC 2 ERR "extra_row.txt:3: more than the 1 rows" ERR_LINES 1)
filter_cli_test(kernel_after_scale "filter a.ppm b.ppm --kernel ${K}/after_scale.txt"
                RC 2 ERR "after_scale.txt:4: nothing may follow" ERR_LINES 1)
filter_cli_test(kernel_empty "filter a.ppm b.ppm --kernel ${K}/empty.txt"
                RC 2 ERR "empty.txt:1: no size line" ERR_LINES 1)
filter_cli_test(kernel_missing "filter a.ppm b.ppm --kernel ${K}/no-such.txt"
                RC 2 ERR "no-such.txt: No such file" ERR_LINES 1)
# finite as text, inf as an f32 tap: refused with the line (it was accepted)
filter_cli_test(kernel_overflow "filter a.ppm b.ppm --kernel ${K}/overflow.txt"
                RC 2 ERR "overflow.txt:2: 1e[+]39 overflows f32" ERR_LINES 1)
filter_cli_test(kernel_overflow_scale "filter a.ppm b.ppm --kernel ${K}/overflow_scale.txt"
                RC 2 ERR "overflow_scale.txt: tap 1 of row 1 times the scale, 1e[+]60, overflows f32"
                ERR_LINES 1)

# Real filters on the committed images, CPU backend.
filter_cli_test(gaussian "filter ${FLT_DATA}/astronaut.ppm ${FLT_OUT}/gauss.ppm --gaussian 5 --backend cpu"
                RC 0 OUT "^filter: 121x91, 3 ch, 5x5 separable on cpu" ERR_LINES 0)
filter_cli_test(box "filter ${FLT_DATA}/astronaut.ppm ${FLT_OUT}/box.ppm --box 7 --backend cpu"
                RC 0 OUT "7x7 separable" ERR_LINES 0)
filter_cli_test(sharpen "filter ${FLT_DATA}/astronaut.ppm ${FLT_OUT}/sharp.ppm --sharpen --backend cpu"
                RC 0 OUT "3x3 filter on cpu" ERR_LINES 0)
filter_cli_test(sobel_gray "filter ${FLT_DATA}/plain.pgm ${FLT_OUT}/sobel.pgm --sobel --backend cpu"
                RC 0 OUT "1 ch, 3x3 filter" ERR_LINES 0)
filter_cli_test(kernel_file "filter ${FLT_DATA}/astronaut.ppm ${FLT_OUT}/k.ppm --kernel ${K}/blur3.txt --backend cpu"
                RC 0 OUT "3x3 filter on cpu" ERR_LINES 0)
filter_cli_test(missing_image "filter ${FLT_OUT}/no-such.ppm ${FLT_OUT}/x.ppm --sobel --backend cpu"
                RC 1 ERR "^cupat: .*no-such\\.ppm" ERR_LINES 1)
# '-' is stdin / stdout, as for gray, blur and hist (cmd_image.c's code): the
# report then goes to stderr; "P6\n121 91\n255\n" comes out
filter_cli_test(stdin_stdout "filter - - --format ppm --sobel --backend cpu"
                STDIN_PIPE ${FLT_DATA}/astronaut.ppm STDOUT_FILE ${FLT_OUT}/stdout.ppm
                OUT_HEX "^50360a3132312039310a3235350a"
                RC 0 ERR "^filter: 121x91, 3 ch, 3x3 filter on cpu .*-> [(]stdout[)]\n$" ERR_LINES 1)
filter_cli_test(stdin_file "filter - ${FLT_OUT}/stdin.pgm --box 3 --backend cpu"
                STDIN_PIPE ${FLT_DATA}/plain.pgm RC 0 OUT "^filter: 4x3, 1 ch, 3x3 separable.*stdin\\.pgm\n$"
                ERR_LINES 0)
filter_cli_test(stdin_not_image "filter - ${FLT_OUT}/x.pgm --sobel --backend cpu"
                STDIN_PIPE ${FLT_DATA}/text.png RC 1 ERR "^cupat: .*[(]stdin[)].*neither PNG" ERR_LINES 1)
filter_cli_test(format_with_path "filter a.ppm b.pgm --sobel --format pgm" RC 2
                ERR "--format is for OUT '-'" ERR_LINES 1)
filter_cli_test(cuda "filter ${FLT_DATA}/astronaut.ppm ${FLT_OUT}/gauss_cuda.ppm --gaussian 9 --backend cuda"
                RC "0|1" ANY "^filter: 121x91.*cuda|cupat: .*\n$")
