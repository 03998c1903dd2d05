# SPDX-License-Identifier: Apache-2.0
# image.cmake — image files (test_image, per backend) and the `cupat gray` /
# `cupat blur` commands. The images are in tests/data (see its README.md).

cupat_test(test_image test_image.c)
# The gray reference loop must round like the library: no fused multiply-add.
target_compile_options(test_image PRIVATE $<$<COMPILE_LANGUAGE:C>:-ffp-contract=off>)
# Whether this build has PNG: the test then expects success or NOT_SUPPORTED
# (PBM/PGM/PPM/PAM are always there).
if(PNG_FOUND)
  target_compile_definitions(test_image PRIVATE CUPAT_HAVE_PNG=1)
endif()

# CLI tests run the binary through cli.cmake's checker (exit code and output
# together); image_cli_test takes cupat_cli_test's arguments.
set(IMG_DATA ${PROJECT_SOURCE_DIR}/tests/data)
set(IMG_OUT ${CMAKE_CURRENT_BINARY_DIR}/image_cli)
file(MAKE_DIRECTORY ${IMG_OUT})
# image tests are cli.image.NAME, labelled cli and image.
macro(image_cli_test name args)
  cupat_cli_test(image.${name} "${args}" LABELS image ${ARGN})
endmacro()
# A test of PNG files: skipped, with the reason, where the build has no libpng.
macro(image_png_test name args)
  cupat_cli_test(image.${name} "${args}" LABELS image ${ARGN} ${CUPAT_NEEDS_PNG})
endmacro()

# Arguments: checked before any file is touched.
image_cli_test(gray_help "gray --help" RC 0 OUT "Usage: cupat gray IN OUT" ERR_LINES 0)
image_cli_test(blur_help "blur --help" RC 0 OUT "Usage: cupat blur IN OUT.*--radius")
image_cli_test(blur_negative_radius "blur ${IMG_DATA}/astronaut.png ${IMG_OUT}/x.png --radius -1"
               RC 2 ERR "--radius '-1'" ERR_LINES 1)
image_cli_test(blur_huge_radius "blur a.png b.png --radius 65" RC 2 ERR "--radius" ERR_LINES 1)
image_cli_test(gray_radius "gray a.png b.png --radius 2" RC 2 ERR "blur only" ERR_LINES 1)
image_cli_test(gray_one_path "gray a.png" RC 2 ERR "IN and OUT" ERR_LINES 1)
image_cli_test(gray_three_paths "gray a.png b.png c.png" RC 2 ERR "'c.png'" ERR_LINES 1)
image_cli_test(gray_bad_reps "gray a.png b.png --reps 0" RC 2 ERR "--reps" ERR_LINES 1)
image_cli_test(gray_bad_backend "gray a.png b.png --backend gpu" RC 2 ERR "'gpu'" ERR_LINES 1)
image_cli_test(gray_unknown_option "gray a.png b.png --frob" RC 2 ERR "unknown option" ERR_LINES 1)

# Files that cannot be read: exit 1, "cupat: <the library's message>".
image_cli_test(gray_missing_input "gray ${IMG_OUT}/no-such.png ${IMG_OUT}/x.png --backend cpu"
               RC 1 ERR "^cupat: .*no-such\\.png.*No such file" ERR_LINES 1)
image_cli_test(gray_not_an_image "gray ${IMG_DATA}/text.png ${IMG_OUT}/x.png --backend cpu"
               RC 1 ERR "^cupat: .*neither PNG" ERR_LINES 1)

image_png_test(gray_png "gray ${IMG_DATA}/astronaut.png ${IMG_OUT}/gray.png --backend cpu --reps 3"
               RC 0 OUT "^gray: 121x91 .*cpu.*median .* ms .*gray\\.png\n$" ERR_LINES 0
               SETUP image_gray_png)
image_png_test(blur_rgba "blur ${IMG_DATA}/pngtest.png ${IMG_OUT}/blur.png --radius 2 --backend cpu"
               RC 0 OUT "^blur: 91x69 .*4 ch.*r=2" ERR_LINES 0)
image_png_test(gray_rgba "gray ${IMG_DATA}/pngtest.png ${IMG_OUT}/gray_rgba.png --backend cpu"
               RC 0 OUT "alpha dropped")
image_png_test(gray_of_gray "gray ${IMG_DATA}/camera.png ${IMG_OUT}/x.png --backend cpu"
               RC 1 ERR "already gray" ERR_LINES 1)
image_png_test(gray_bad_variant
               "gray ${IMG_DATA}/astronaut.png ${IMG_OUT}/x.png --backend cpu --variant no-such-rung"
               RC 2 ERR "no-such-rung" ERR_LINES 1)
image_png_test(gray_unwritable "gray ${IMG_DATA}/astronaut.png /nonexistent-cupat-dir/x.png --backend cpu"
               RC 1 ERR "^cupat: .*nonexistent-cupat-dir" ERR_LINES 1)
# The CUDA backend: the result line, or (no device) exit 1 with one line.
image_png_test(gray_cuda "gray ${IMG_DATA}/astronaut.png ${IMG_OUT}/gray_cuda.png --backend cuda"
               RC "0|1" ANY "^gray: 121x91 .*cuda|cupat: .*\n$")
# The first test's output read back, blurred, written as PGM.
image_png_test(blur_gray_output "blur ${IMG_OUT}/gray.png ${IMG_OUT}/blur.pgm --radius 3 --backend cpu"
               RC 0 OUT "^blur: 121x91 .*1 ch.*r=3" REQUIRES image_gray_png)

# Streams (issue 18): a pipe and a FIFO read like files; '-' is stdin / stdout,
# and the report line then goes to stderr.
image_cli_test(gray_stdin_pipe "gray - ${IMG_OUT}/gray_stdin.pgm --backend cpu --reps 1"
               STDIN_PIPE ${IMG_DATA}/astronaut.ppm
               RC 0 OUT "^gray: 121x91 .*gray_stdin\\.pgm\n$" ERR_LINES 0)
image_cli_test(blur_fifo "blur ${IMG_OUT}/in.fifo ${IMG_OUT}/blur_fifo.pam --backend cpu --reps 1"
               FIFO ${IMG_OUT}/in.fifo FIFO_FROM ${IMG_DATA}/pngtest.pam
               RC 0 OUT "^blur: 91x69 .*4 ch" ERR_LINES 0)
# "P5\n121 91\n255\n" and the report on stderr.
image_cli_test(gray_stdout_pgm "gray ${IMG_DATA}/astronaut.ppm - --format pgm --backend cpu --reps 1"
               STDOUT_FILE ${IMG_OUT}/stdout.pgm OUT_HEX "^50350a3132312039310a3235350a"
               RC 0 ERR "^gray: 121x91 .*-> [(]stdout[)]\n$" ERR_LINES 1 SETUP image_stdout_pgm)
image_cli_test(blur_stdout_read_back "blur ${IMG_OUT}/stdout.pgm ${IMG_OUT}/x.pam --backend cpu --reps 1"
               RC 0 OUT "^blur: 121x91 .*1 ch" REQUIRES image_stdout_pgm)
image_cli_test(gray_stdin_not_image "gray - ${IMG_OUT}/x.pgm --backend cpu"
               STDIN_PIPE ${IMG_DATA}/text.png RC 1 ERR "^cupat: .*[(]stdin[)].*neither PNG" ERR_LINES 1)
image_cli_test(gray_bad_format "gray a.png - --format bmp" RC 2 ERR "--format 'bmp'" ERR_LINES 1)
image_cli_test(gray_format_with_path "gray a.png b.pgm --format pgm" RC 2
               ERR "--format is for OUT '-'" ERR_LINES 1)
# The issue's own line: cat x.png | cupat gray /dev/stdin out.png
image_png_test(gray_dev_stdin "gray /dev/stdin ${IMG_OUT}/gray_devstdin.png --backend cpu --reps 1"
               STDIN_PIPE ${IMG_DATA}/astronaut.png RC 0 OUT "^gray: 121x91 " ERR_LINES 0)
# stdin to stdout, PNG by default.
image_png_test(gray_stdin_stdout "gray - - --backend cpu --reps 1"
               STDIN_PIPE ${IMG_DATA}/astronaut.png STDOUT_FILE ${IMG_OUT}/stdout.png
               OUT_HEX "^89504e470d0a1a0a" RC 0 ERR "^gray: 121x91 " ERR_LINES 1)
image_cli_test(gray_ppm "gray ${IMG_DATA}/astronaut.ppm ${IMG_OUT}/gray.pgm --backend cpu --reps 1"
               RC 0 OUT "^gray: 121x91 " ERR_LINES 0)
image_cli_test(blur_rgba_to_ppm "blur ${IMG_DATA}/pngtest.pam ${IMG_OUT}/x.ppm --backend cpu"
               RC 1 ERR "alpha" ERR_LINES 1)
