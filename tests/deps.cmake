# SPDX-License-Identifier: Apache-2.0
add_test(NAME deps.no_libcuda
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/no_libcuda.sh $<TARGET_FILE:cupat>
                 $<TARGET_FILE:cupat_cli> $<TARGET_FILE:test_core>)
