/* SPDX-License-Identifier: Apache-2.0 */
/* scan.c — PMPP 11: an exclusive prefix sum turns per-item counts into
 * offsets (where each item's output starts), the step behind compaction,
 * radix sort and sparse-matrix construction. */
#include <cupat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

int main(void)
{
    const size_t n = 1000000;
    uint32_t *count = malloc(n * sizeof *count), *offset = malloc(n * sizeof *offset);
    for (size_t i = 0; i < n; i++) count[i] = (uint32_t)(i * 2654435761u >> 29); /* 0..7 outputs an item */
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    uint32_t *dc, *doff;
    TRY(cupat_malloc(ctx, (void **)&dc, n * sizeof *dc));
    TRY(cupat_malloc(ctx, (void **)&doff, n * sizeof *doff));
    TRY(cupat_memcpy(ctx, dc, count, n * sizeof *count));
    TRY(cupat_scan(ctx, CUPAT_U32, CUPAT_OP_SUM, CUPAT_SCAN_EXCLUSIVE, n, dc, doff));
    TRY(cupat_memcpy(ctx, offset, doff, n * sizeof *offset)); /* waits: pageable */
    uint32_t run = 0, bad = 0;
    for (size_t i = 0; i < n; i++) bad += offset[i] != run, run += count[i];
    printf("%s: exclusive scan of %zu counts: item %zu starts at %u, %u outputs in all, %u wrong\n",
           cupat_backend_name(cupat_get_backend(ctx)), n, n - 1, offset[n - 1], run, bad);
    cupat_free(ctx, dc);
    cupat_free(ctx, doff);
    cupat_destroy(ctx);
    free(count);
    free(offset);
    return bad != 0;
}
