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
# The build without the CUDA toolkit: libcupat needs no libcudart and
# calls no CUDA function (readelf and nm over the shared library).
if(NOT CUPAT_CUDA)
  add_test(NAME nocuda.no_cudart
           COMMAND sh -c "if readelf -d \"$1\" | grep -qi cuda || nm -D --undefined-only \"$1\" | grep -q ' cuda'; then readelf -d \"$1\" | grep NEEDED; exit 1; fi; echo 'libcupat needs no CUDA library'"
                   sh $<TARGET_FILE:cupat>)
  set_tests_properties(nocuda.no_cudart PROPERTIES LABELS install)
endif()
# The stand-ins of that build (src/nocuda/kernels.c) are those a CUDA
# build's objects call for: written by scripts/nocuda-stubs, checked here.
if(CUPAT_CUDA)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    add_test(NAME nocuda.stubs_current
             COMMAND sh -c "mkdir -p $4/nocuda && $1 $2/scripts/nocuda-stubs $3 $4/nocuda/kernels.c src '!src/dist' '!src/nocuda' >/dev/null && diff -u $2/src/nocuda/kernels.c $4/nocuda/kernels.c || { echo 'src/nocuda/kernels.c is stale: run scripts/nocuda-stubs BUILD src/nocuda/kernels.c src !src/dist !src/nocuda'; exit 1; }"
                     sh ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(nocuda.stubs_current PROPERTIES LABELS install)
  else()
    cupat_skipped_test(nocuda.stubs_current "no python3 to write the no-toolkit build's stand-ins" LABELS install)
  endif()
endif()
