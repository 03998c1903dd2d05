# `make install` works: the example builds and runs against the installed package.
find_program(PKG_CONFIG_EXECUTABLE_FOR_TEST pkg-config)
add_test(NAME install.example
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR} ${CUDAToolkit_LIBRARY_ROOT})
set_tests_properties(install.example PROPERTIES TIMEOUT 600 LABELS install)
