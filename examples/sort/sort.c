/* SPDX-License-Identifier: Apache-2.0 */
/* sort.c — PMPP 13: a stable radix sort of (key, value) pairs; with the
 * values 0..n-1 it is an argsort: value i says where the i-th smallest key was. */
#include <cupat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

int main(void)
{
    const size_t n = (size_t)1 << 20;
    uint32_t *key = malloc(n * 4), *idx = malloc(n * 4), *skey = malloc(n * 4), *sidx = malloc(n * 4);
    uint64_t s = 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        key[i] = (uint32_t)(s >> 52); /* 4096 distinct keys: many ties, kept in input order */
        idx[i] = (uint32_t)i;
    }
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    uint32_t *dk, *dv;
    TRY(cupat_malloc(ctx, (void **)&dk, n * 4));
    TRY(cupat_malloc(ctx, (void **)&dv, n * 4));
    TRY(cupat_memcpy(ctx, dk, key, n * 4));
    TRY(cupat_memcpy(ctx, dv, idx, n * 4));
    TRY(cupat_sort(ctx, CUPAT_U32, 4, CUPAT_SORT_ASCENDING, n, dk, dk, dv, dv)); /* in place */
    TRY(cupat_memcpy(ctx, skey, dk, n * 4));
    TRY(cupat_memcpy(ctx, sidx, dv, n * 4));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += key[sidx[i]] != skey[i];                                     /* each value follows its key */
        if (i) bad += skey[i - 1] > skey[i] || (skey[i - 1] == skey[i] && sidx[i - 1] > sidx[i]); /* stable */
    }
    printf("%s: sorted %zu (key, index) pairs: smallest key %u came from %u, largest %u from %u; %zu wrong\n",
           cupat_backend_name(cupat_get_backend(ctx)), n, skey[0], sidx[0], skey[n - 1], sidx[n - 1], bad);
    cupat_free(ctx, dk);
    cupat_free(ctx, dv);
    cupat_destroy(ctx);
    free(key), free(idx), free(skey), free(sidx);
    return bad != 0;
}
