# SPDX-License-Identifier: Apache-2.0
# float_lab.cmake — `cupat lab float` (lab/float): the encoder / decoder, the
# rounding reference against the host FPU, ulps and the summation orders on
# the CPU; the rounding-mode intrinsics, the functions under three builds and
# the FMA rates on the GPU (cuda).
cupat_test(test_float_lab test_float_lab.c)
target_link_libraries(test_float_lab PRIVATE cupat_lab)
cupat_cli_test(lab_float_help "lab float --help" RC 0 OUT "encode.*classes.*rounding.*intrinsics.*fp64.*sum" LABELS lab)
cupat_cli_test(lab_float_unknown "lab float bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1 LABELS lab)
# The lecture's examples and the classes, without a GPU; the slide's 34-digit -1.625 refused.
cupat_cli_test(lab_float_encode "lab float encode classes" RC 0
               OUT "BF400000.*466DB400.*BB580000.*-0.0032958984375.*BFD00000.*34 binary digits, not 32.*denormal.*quiet NaN.*every check OK"
               LABELS lab)
cupat_cli_test(lab_float_bits34 "lab float --bits 1001111110101000000000000000000000" RC 2 ERR "34 binary digits" ERR_LINES 1
               LABELS lab)
cupat_cli_test(lab_float_decode "lab float --decode 0x00000001" RC 0 OUT "denormal.*E = -126" LABELS lab)
cupat_cli_test(lab_float_sum_cpu "lab float sum --backend cpu --n 65536" RC 0
               OUT "presort.*compensated rung.*cancelling.*every check OK" LABELS lab)
cupat_cli_test(lab_float_cpu_gpu "lab float rounding --backend cpu" RC 2 ERR "for 'sum'" ERR_LINES 1 LABELS lab)
# With a device: every check OK (a GPU result off the reference exits 1);
# without one, the host parts and one line a GPU experiment.
cupat_cli_test(lab_float_all "lab float --n 65536 --reps 2" RC "0|1"
               ANY "float lab: every check OK|skipped \\(no GPU\\)" LABELS lab)
# --json FILE, as every lab takes it (the rows also as JSON).
cupat_cli_test(lab_float_json "lab float encode classes --json lab_float_encode.json" RC 0 OUT "every check OK" LABELS lab)
cupat_cli_test(lab_float_json_bad "lab float encode --json /nonexistent/dir/f.json" RC 1 ERR "--json /nonexistent/dir/f.json: cannot write"
               ERR_LINES 1 LABELS lab)
