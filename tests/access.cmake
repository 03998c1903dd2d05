# CUDA kernels only: no CPU registration (it could only skip).
set(CUPAT_TEST_BACKENDS cuda)
cupat_test(test_access test_access.c)
unset(CUPAT_TEST_BACKENDS)
# The kernels are the lab's (lab/access), not the library's.
target_link_libraries(test_access PRIVATE cupat_lab)
target_include_directories(test_access PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
