cupat_test(test_core test_core.c)
# cupat__overlap (src/core/internal.h) is tested directly.
target_include_directories(test_core PRIVATE ${PROJECT_SOURCE_DIR}/src/core)
