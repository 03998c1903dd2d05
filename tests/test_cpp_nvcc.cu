// SPDX-License-Identifier: Apache-2.0
// test_cpp_nvcc.cu — test_cpp.cpp compiled by nvcc (C++17): cupat.hpp in CUDA sources.
#include "test_cpp.cpp"
