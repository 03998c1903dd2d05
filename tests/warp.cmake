# SPDX-License-Identifier: Apache-2.0
# warp.cmake — src/core/cupat_warp.cuh's helpers against host models of their
# trees. Device code only: just the cuda run is registered (it exits 77, a
# skip, without a device).
add_executable(test_warp test_warp.cu)
target_link_libraries(test_warp PRIVATE cupat_static CUDA::cudart m)
target_include_directories(test_warp PRIVATE ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/src/core)
target_compile_options(test_warp PRIVATE --expt-relaxed-constexpr -lineinfo -Xcompiler=-Wall)
add_test(NAME test_warp.cuda COMMAND test_warp --backend cuda)
set_tests_properties(test_warp.cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS cuda)
