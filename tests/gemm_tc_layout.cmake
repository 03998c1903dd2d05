# SPDX-License-Identifier: Apache-2.0
# gemm_tc_layout.cmake — tests/gemm_tc_mma_layout.py: the mma_sync rung's
# swizzle, ldmatrix and fragment index math, checked on the CPU (python3).
find_program(CUPAT_LAYOUT_PYTHON NAMES python3)
if(CUPAT_LAYOUT_PYTHON)
  add_test(NAME gemm_tc.mma_layout COMMAND ${CUPAT_LAYOUT_PYTHON} ${PROJECT_SOURCE_DIR}/tests/gemm_tc_mma_layout.py)
else()
  cupat_skipped_test(gemm_tc.mma_layout "no python3 was found at configure time (Debian: python3)")
endif()
