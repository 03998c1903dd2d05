# SPDX-License-Identifier: Apache-2.0
# gemm_tc.cmake — the half-precision types (every f16 / bf16 pattern, f32 ->
# f16 / bf16 / tf32 against an exact reference) and cupat_gemm (every type
# pair against an f64 reference of the rounded inputs, the argument checks).
# On the CUDA backend cupat_gemm has no rung yet: that run checks the refusal.
cupat_test(test_gemm_tc test_gemm_tc.c)
