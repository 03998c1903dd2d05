/* SPDX-License-Identifier: Apache-2.0 */
/* transpose.c — cupat_transpose: argument checks, the ladder, dispatch. */
#include "transpose_internal.h"

#include <stdint.h>

#define CUDA_RUNG(n, tech, src) {"transpose", n, tech, src, CUPAT_BACKEND_CUDA, 0}

/* Order = enum cupat_transpose_rung. */
static const cupat_variant_info rungs[] = {
    CUDA_RUNG("serial", "one device thread for the whole matrix (capped at 2^22 elements)",
              "lecture 10"),
    CUDA_RUNG("row", "one thread per output row: coalesced reads, strided writes", "lecture 10"),
    CUDA_RUNG("element", "one thread per element, 32x32 blocks", "lecture 10"),
    CUDA_RUNG("naive_row", "load rows, store columns (16x16 blocks)", "PCCP 4.4"),
    CUDA_RUNG("naive_col", "load columns, store rows: strided loads hit L1", "PCCP 4.4"),
    CUDA_RUNG("unroll4_row", "4 independent loads a thread, rows", "PCCP 4.4"),
    CUDA_RUNG("unroll4_col", "4 independent loads a thread, columns", "PCCP 4.4"),
    CUDA_RUNG("diag_row", "diagonal block coordinates, rows", "PCCP 4.4"),
    CUDA_RUNG("diag_col", "diagonal block coordinates, columns", "PCCP 4.4"),
    CUDA_RUNG("naive_row_8x32", "thin 8x32 blocks, rows", "PCCP 4.4"),
    CUDA_RUNG("naive_col_8x32", "thin 8x32 blocks, columns", "PCCP 4.4"),
    CUDA_RUNG("unroll4_col_8x32", "thin blocks and 4 loads a thread, columns", "PCCP 4.4"),
    CUDA_RUNG("naive_gmem", "32x16 blocks, global memory only (the 5.4 baseline)", "PCCP 5.4"),
    CUDA_RUNG("smem", "shared-memory tile: both global accesses coalesced", "PCCP 5.4"),
    CUDA_RUNG("smem_pad", "padded tile rows: no bank conflicts", "PCCP 5.4"),
    CUDA_RUNG("smem_unroll_pad", "two tiles a block, padded", "PCCP 5.4"),
    CUDA_RUNG("smem_dyn", "shared-memory tile, dynamic allocation", "PCCP 5.4"),
    CUDA_RUNG("smem_pad_dyn", "padded tile, dynamic allocation", "PCCP 5.4"),
    CUDA_RUNG("smem_unroll_pad_dyn", "two padded tiles a block, dynamic allocation", "PCCP 5.4"),
    CUDA_RUNG("tile32", "32x32 tile, 32x8 block, 4 elements a thread, pad 1", "PCCP 5.4"),
    CUDA_RUNG("vec16", "16-byte loads and stores, XOR-swizzled 128-byte tile rows",
              "beyond the books"),
    CUDA_RUNG("vec16_wide",
              "16-byte accesses, 256-byte tile rows (64x64 f32, 32x32 f64), 4 vectors a thread",
              "beyond the books"),
    CUDA_RUNG("vec16_stream", "vec16_wide with evict-first loads and stores (__ldcs, __stcs)",
              "CUDA PG (cache hints)"),
    CUDA_RUNG("vec16_grouped",
              "vec16_wide with tiles in bands of 16 tile rows, column-major inside a band",
              "beyond the books"),
    /* the default: fastest for f32 and f64 on the H100 (docs/transpose.md);
     * f32 that fits in L2 runs vec16 (cupat_transpose) */
    {"transpose", "vec8_2x2",
     "8-byte words, 256-byte rows both ways: 64x64 f32 tile of 2x2 register "
     "transposes (f64: 32x32), swizzled",
     "beyond the books", CUPAT_BACKEND_CUDA, 1},
    CUDA_RUNG("vec8_2x2_pipe",
              "vec8_2x2, persistent blocks: next tile's loads in flight during the stores, "
              "double-buffered tile",
              "beyond the books"),
    {"transpose", "cpu_naive", "OpenMP over output rows", "PCCP 4.4 (transposeHost)",
     CUPAT_BACKEND_CPU, 0},
    {"transpose", "cpu", "OpenMP, cache-blocked 32x32", "cupat", CUPAT_BACKEND_CPU, 1},
};

_Static_assert(sizeof rungs / sizeof rungs[0] == TR_COUNT, "one entry a rung, in enum order");

const cupat_pattern_desc cupat__pattern_transpose = {"transpose", rungs, TR_COUNT};

cupat_status cupat_transpose(cupat_ctx *ctx, size_t rows, size_t cols, size_t elem_size,
                             const void *in, size_t ld_in, void *out, size_t ld_out)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_transpose";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (elem_size != 4 && elem_size != 8)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: elem_size = %zu (must be 4 or 8)", fn, elem_size);
    if (ld_in < cols)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: ld_in = %zu < cols = %zu", fn,
                           ld_in, cols);
    if (ld_out < rows)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: ld_out = %zu < rows = %zu", fn,
                           ld_out, rows);
    /* Overflow checks on the full pitched extents, then the exact spans. */
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "rows * ld_in * elem_size", rows, ld_in, elem_size, &bytes));
    CUPAT_TRY(cupat__size_mul(ctx, fn, "cols * ld_out * elem_size", cols, ld_out, elem_size, &bytes));
    size_t in_bytes = rows && cols ? ((rows - 1) * ld_in + cols) * elem_size : 0;
    size_t out_bytes = rows && cols ? ((cols - 1) * ld_out + rows) * elem_size : 0;
    CUPAT_TRY(cupat__check_data(ctx, fn, "in", in, in_bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, "out", out, out_bytes));
    CUPAT_TRY(cupat__check_disjoint(
        ctx, fn, "out", cupat__extent2(out, rows ? cols : 0, rows * elem_size, ld_out * elem_size),
        "in", cupat__extent2(in, cols ? rows : 0, cols * elem_size, ld_in * elem_size),
        "in-place transpose is not supported"));

    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "transpose", &v));
    int rung = cupat__rung_index(v);
    if (rows == 0 || cols == 0) return CUPAT_SUCCESS;
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        cupat__transpose_cpu(rung, rows, cols, elem_size, in, ld_in, out, ld_out);
        return CUPAT_SUCCESS;
    }
    if (rung == TR_SERIAL && rows * cols > CUPAT_TRANSPOSE_SERIAL_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: rung \"serial\" runs one GPU thread and takes at most %zu "
                           "elements; rows x cols = %zu x %zu (pin another rung)",
                           fn, (size_t)CUPAT_TRANSPOSE_SERIAL_MAX, rows, cols);
    /* The default's one choice by size: f32 matrices whose read and write fit
     * in L2 run vec16's 128-byte tiles (H100, 2048^2: 0.0133 ms against
     * vec8_2x2's 0.0141, cublasSgeam 0.0139; docs/transpose.md). A pinned
     * rung runs as pinned. */
    if (rung == TR_VEC8_2X2 && !cupat__pinned(ctx, "transpose") && elem_size == 4 &&
        2 * rows * cols * elem_size <= ctx->l2_bytes)
        rung = TR_VEC16;
    return cupat__transpose_cuda(ctx, rung, rows, cols, elem_size, in, ld_in, out, ld_out);
}
