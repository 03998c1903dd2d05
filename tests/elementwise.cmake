# SPDX-License-Identifier: Apache-2.0
# elementwise.cmake — vadd, saxpy, matadd, gray, blur: every rung of each ladder.
cupat_test(test_elementwise test_elementwise.c)
