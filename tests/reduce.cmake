# SPDX-License-Identifier: Apache-2.0
# reduce.cmake — cupat_reduce / cupat_dot: every rung of both ladders.
cupat_test(test_reduce test_reduce.c)
# The lecture's dot-product methods are computed here in f32: no contraction.
target_compile_options(test_reduce PRIVATE -ffp-contract=off)
