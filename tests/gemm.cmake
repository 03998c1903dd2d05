# SPDX-License-Identifier: Apache-2.0
# gemm.cmake — cupat_gemm_f32 / cupat_gemv_f32: every rung, every tile
# configuration of the multistage kernel (reached through src/gemm's internal
# header), the issue's shapes, the argument checks.
cupat_test(test_gemm test_gemm.c)
target_include_directories(test_gemm PRIVATE ${PROJECT_SOURCE_DIR}/src/core ${PROJECT_SOURCE_DIR}/src)
set_tests_properties(test_gemm.cuda PROPERTIES TIMEOUT 1800)
