# SPDX-License-Identifier: Apache-2.0
cupat_test(test_stencil1d test_stencil1d.c)
