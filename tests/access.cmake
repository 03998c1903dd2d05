cupat_test(test_access test_access.c)
# The lab kernels are internal: their header lives in src/access.
target_include_directories(test_access PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
