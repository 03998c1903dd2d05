# SPDX-License-Identifier: Apache-2.0
# stencil3d.cmake — cupat_stencil3d, the step driver and the presets: every
# rung of the "stencil3d" ladder against the documented chain, bit for bit.
cupat_test(test_stencil3d test_stencil3d.c)
target_compile_options(test_stencil3d PRIVATE -ffp-contract=off)
