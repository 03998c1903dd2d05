/* SPDX-License-Identifier: Apache-2.0 */
/* test_threads.c — one context per host thread (cupat.h): four threads, each
 * with its own context, sort, scan and reduce at the same time, each pinning
 * other rungs than its neighbours; every result is checked against the
 * thread's own host reference, and each thread's failure messages (its
 * context's, and cupat_last_error(NULL)'s thread slot) stay its own. Runs on
 * both backends. Worker threads never touch the test counters (not
 * thread-safe): they record what they saw, and main checks it after join. */
#include "testutil.h"

#include <pthread.h>
#include <stdint.h>

#define THREADS 4
#define ROUNDS 6

typedef struct {
    int id;
    size_t n;
    /* what the thread saw */
    int create_ok, sort_bad, scan_bad, reduce_bad, calls_failed;
    int own_message, own_null_message;
    char first_error[256];
} worker;

static uint32_t next_u32(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Pins of thread id: the rungs alternate so that contexts side by side run
 * different code (a pin must stay on its context). */
static void pin(cupat_ctx *ctx, int id)
{
    const char *const cpu_sort[] = {"serial", "openmp"}, *const cuda_sort[] = {"onesweep", "coarsened"};
    const char *const cpu_scan[] = {"openmp", "serial"}, *const cuda_scan[] = {"decoupled", "warp_shfl"};
    int cuda = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA;
    cupat_set_variant(ctx, "sort", (cuda ? cuda_sort : cpu_sort)[id % 2]);
    cupat_set_variant(ctx, "scan", (cuda ? cuda_scan : cpu_scan)[id / 2 % 2]);
}

static void note_failure(worker *w, cupat_ctx *ctx, cupat_status s)
{
    if (s == CUPAT_SUCCESS) return;
    if (!w->calls_failed++)
        snprintf(w->first_error, sizeof w->first_error, "%s: %s", cupat_status_string(s), cupat_last_error(ctx));
}

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, t_backend, -1) != CUPAT_SUCCESS) return NULL;
    w->create_ok = 1;
    pin(ctx, w->id);
    const size_t n = w->n, bytes = n * sizeof(uint32_t);
    uint32_t *h_in = malloc(bytes), *h_out = malloc(bytes), *h_ref = malloc(bytes);
    void *d_in = NULL, *d_out = NULL, *d_sum = NULL;
    cupat_status s = CUPAT_SUCCESS;
    if (!h_in || !h_out || !h_ref) goto done;
    if ((s = cupat_malloc(ctx, &d_in, bytes)) || (s = cupat_malloc(ctx, &d_out, bytes)) ||
        (s = cupat_malloc(ctx, &d_sum, sizeof(uint64_t)))) {
        note_failure(w, ctx, s);
        goto done;
    }
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t i = 0; i < n; i++) h_in[i] = next_u32(&seed) >> (round % 3 * 8); /* other digit counts */
        note_failure(w, ctx, s = cupat_memcpy(ctx, d_in, h_in, bytes));
        /* sort */
        note_failure(w, ctx, s = cupat_sort(ctx, CUPAT_U32, 0, CUPAT_SORT_ASCENDING, n, d_in, d_out, NULL, NULL));
        note_failure(w, ctx, cupat_memcpy(ctx, h_out, d_out, bytes));
        note_failure(w, ctx, cupat_sync(ctx));
        memcpy(h_ref, h_in, bytes);
        qsort(h_ref, n, sizeof *h_ref, cmp_u32);
        w->sort_bad += memcmp(h_out, h_ref, bytes) != 0;
        /* inclusive scan (u32 wraps) */
        note_failure(w, ctx, cupat_scan(ctx, CUPAT_U32, CUPAT_OP_SUM, CUPAT_SCAN_INCLUSIVE, n, d_in, d_out));
        note_failure(w, ctx, cupat_memcpy(ctx, h_out, d_out, bytes));
        note_failure(w, ctx, cupat_sync(ctx));
        uint32_t run = 0;
        int bad = 0;
        for (size_t i = 0; i < n; i++) bad |= h_out[i] != (run += h_in[i]);
        w->scan_bad += bad;
        /* u32 sum, on the host: a value this thread alone can predict */
        uint32_t got = 0;
        note_failure(w, ctx, cupat_reduce_host(ctx, CUPAT_U32, CUPAT_OP_SUM, n, d_in, &got));
        w->reduce_bad += got != run;
        /* a failure of its own, then its message must be its own */
        char needle[64];
        (void)cupat_scan(ctx, CUPAT_U32, CUPAT_OP_SUM, (cupat_scan_mode)(77 + w->id), n, d_in, d_out);
        snprintf(needle, sizeof needle, "mode = %d ", 77 + w->id);
        w->own_message += strstr(cupat_last_error(ctx), needle) != NULL;
        /* the thread's slot outside any context */
        cupat_check_version(-1 - w->id - 10 * round);
        snprintf(needle, sizeof needle, "header_version = %d ", -1 - w->id - 10 * round);
        w->own_null_message += strstr(cupat_last_error(NULL), needle) != NULL;
    }
done:
    cupat_free(ctx, d_in);
    cupat_free(ctx, d_out);
    cupat_free(ctx, d_sum);
    free(h_in);
    free(h_out);
    free(h_ref);
    cupat_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv); /* skips where the backend is absent */
    cupat_destroy(ctx);
    worker w[THREADS];
    pthread_t th[THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < THREADS; i++) {
        w[i].id = i;
        /* sizes that differ, around the GPU sort's tile edges */
        w[i].n = t_small ? 3000 + 1000 * (size_t)i : ((size_t)1 << 18) + 4099 * (size_t)i;
        CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0, "pthread_create %d", i);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        CHECK(w[i].create_ok, "thread %d: cupat_create failed", i);
        CHECK(w[i].calls_failed == 0, "thread %d: %d calls failed, first: %s", i, w[i].calls_failed,
              w[i].first_error);
        CHECK(w[i].sort_bad == 0, "thread %d: sort wrong in %d of %d rounds", i, w[i].sort_bad, ROUNDS);
        CHECK(w[i].scan_bad == 0, "thread %d: scan wrong in %d of %d rounds", i, w[i].scan_bad, ROUNDS);
        CHECK(w[i].reduce_bad == 0, "thread %d: reduce wrong in %d of %d rounds", i, w[i].reduce_bad, ROUNDS);
        CHECK(w[i].own_message == ROUNDS, "thread %d: its context's message was its own in %d of %d rounds", i,
              w[i].own_message, ROUNDS);
        CHECK(w[i].own_null_message == ROUNDS, "thread %d: cupat_last_error(NULL) was its own in %d of %d rounds",
              i, w[i].own_null_message, ROUNDS);
    }
    printf("%d threads x %d rounds of sort, scan and reduce, one context each (%s)\n", THREADS, ROUNDS,
           cupat_backend_name(t_backend));
    return test_finish(NULL);
}
