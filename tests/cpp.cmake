# SPDX-License-Identifier: Apache-2.0
# cupat.hpp (the header-only C++ layer) from three compilers' points of view:
# g++ C++20 with std::span, g++ C++17 without exceptions, nvcc C++17.
enable_language(CXX)
function(cupat_cpp_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE cupat_static CUDA::cudart)
  foreach(backend cpu cuda)
    add_test(NAME ${name}.${backend} COMMAND ${name} --backend ${backend})
    set_tests_properties(${name}.${backend} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${backend};cpp"
                         ENVIRONMENT "OMP_WAIT_POLICY=passive")
  endforeach()
endfunction()
set(CUPAT_CXX_WARNINGS -Wall -Wextra -Wshadow -Wno-unused-parameter)
cupat_cpp_test(test_cpp test_cpp.cpp)
set_target_properties(test_cpp PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
target_compile_options(test_cpp PRIVATE ${CUPAT_CXX_WARNINGS})
cupat_cpp_test(test_cpp_noexc test_cpp.cpp)
set_target_properties(test_cpp_noexc PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
target_compile_definitions(test_cpp_noexc PRIVATE CUPAT_NO_EXCEPTIONS)
target_compile_options(test_cpp_noexc PRIVATE ${CUPAT_CXX_WARNINGS} -fno-exceptions)
cupat_cpp_test(test_cpp_nvcc test_cpp_nvcc.cu)
target_include_directories(test_cpp_nvcc PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
