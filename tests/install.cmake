# SPDX-License-Identifier: Apache-2.0
# `make install` works: the example builds and runs against the installed package.
find_program(PKG_CONFIG_EXECUTABLE_FOR_TEST pkg-config)
add_test(NAME install.example
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR} ${CUDAToolkit_LIBRARY_ROOT})
set_tests_properties(install.example PROPERTIES TIMEOUT 600 LABELS install)
# The shared library's ABI: its dynamic symbols are cupat.h's functions, no more, no less.
add_test(NAME abi.exports COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/abi_test.sh $<TARGET_FILE:cupat>
                                  ${PROJECT_SOURCE_DIR}/include/cupat.h)
set_tests_properties(abi.exports PROPERTIES LABELS install SKIP_RETURN_CODE 77)
