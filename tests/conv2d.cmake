# SPDX-License-Identifier: Apache-2.0
# conv2d.cmake — cupat_conv2d and cupat_conv2d_separable: every rung of the
# "conv2d" and "conv2d_sep" ladders against the documented chain, bit for bit.
cupat_test(test_conv2d test_conv2d.c)
# The reference rounds as the API promises: no contraction.
target_compile_options(test_conv2d PRIVATE -ffp-contract=off)
