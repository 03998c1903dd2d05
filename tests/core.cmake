# SPDX-License-Identifier: Apache-2.0
cupat_test(test_core test_core.c)
# cupat__overlap (src/core/internal.h) is tested directly.
target_include_directories(test_core PRIVATE ${PROJECT_SOURCE_DIR}/src/core)
# One context per host thread: four at once (pthreads).
find_package(Threads REQUIRED)
cupat_test(test_threads test_threads.c)
target_link_libraries(test_threads PRIVATE Threads::Threads)
# NVTX ranges seen by a tool: tests/nvtx_inject.c is a minimal injection library.
if(CUPAT_NVTX)
  add_library(cupat_nvtx_inject MODULE nvtx_inject.c)
  target_link_libraries(cupat_nvtx_inject PRIVATE CUDA::toolkit)
  set_target_properties(cupat_nvtx_inject PROPERTIES C_VISIBILITY_PRESET hidden)
  cupat_test(test_nvtx test_nvtx.c)
  foreach(backend cpu cuda)
    set_tests_properties(test_nvtx.${backend} PROPERTIES
      ENVIRONMENT "OMP_WAIT_POLICY=passive;CUPAT_TEST_NVTX_INJECT=$<TARGET_FILE:cupat_nvtx_inject>")
  endforeach()
  add_dependencies(test_nvtx cupat_nvtx_inject)
else()
  cupat_skipped_test(test_nvtx.cpu "this build has no NVTX ranges (CUPAT_NVTX=OFF, or no CUDA toolkit)")
endif()
# The context's workspace: peak, cap, the caller's buffer, trim.
cupat_test(test_workspace test_workspace.c)
# CUDA graphs: the capturable calls captured, replayed and compared (CUDA only).
if(CUPAT_CUDA)
  set(CUPAT_TEST_BACKENDS cuda)
  cupat_test(test_capture test_capture.c)
  unset(CUPAT_TEST_BACKENDS)
endif()
