# SPDX-License-Identifier: Apache-2.0
cupat_test(test_core test_core.c)
# cupat__overlap (src/core/internal.h) is tested directly.
target_include_directories(test_core PRIVATE ${PROJECT_SOURCE_DIR}/src/core)
# One context per host thread: four at once (pthreads).
find_package(Threads REQUIRED)
cupat_test(test_threads test_threads.c)
target_link_libraries(test_threads PRIVATE Threads::Threads)
