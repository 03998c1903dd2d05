/* SPDX-License-Identifier: Apache-2.0 */
/* nvtx_cost.c — what the NVTX ranges cost with no tool attached: the calls
 * CUPAT_TRACE_CALL and cupat__select make for one public call (the call's
 * range and its rung's), against one small public call (docs/api.md). Build
 * against a build tree's archive:
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=199309L -Iinclude -I/usr/local/cuda/include \
 *      bench/experiments/nvtx_cost.c build/libcupat.a -L/usr/local/cuda/lib64 -lcudart \
 *      -lcudadevrt -lgomp -lm -lpng -lz -lstdc++ -ldl -lpthread -lrt -o nvtx_cost
 *   OMP_NUM_THREADS=1 ./nvtx_cost */
#include <cupat.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <time.h>
int cupat__trace_enter(const char *fn);
void cupat__trace_leave(const int *depth);
void cupat__trace_rung(const char *pattern, const char *rung);

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

int main(void)
{
    const int reps = 2000000;
    double best_pair = 1e9, best_call = 1e9;
    cupat_ctx *ctx;
    cupat_create(&ctx, CUPAT_BACKEND_CPU, -1);
    float x[16] = {1}, r;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 0; i < reps; i++) { int d = cupat__trace_enter("cupat_reduce_host"); cupat__trace_rung("reduce", "openmp"); cupat__trace_leave(&d); }
        double t1 = now();
        for (int i = 0; i < reps / 10; i++) cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, 16, x, &r);
        double t2 = now();
        if ((t1 - t0) / reps < best_pair) best_pair = (t1 - t0) / reps;
        if ((t2 - t1) / (reps / 10) < best_call) best_call = (t2 - t1) / (reps / 10);
    }
    printf("one traced call's ranges (cupat__trace_enter, _rung, _leave), no tool: %.1f ns; cupat_reduce_host of 16 floats (CPU backend, traced): %.1f ns\n",
           best_pair * 1e9, best_call * 1e9);
    cupat_destroy(ctx);
    return 0;
}
