// SPDX-License-Identifier: Apache-2.0
// memory_global.cu — the memory lab's global-memory rows that came with issue
// 16: PCCP 4.3's readSegmentUnroll sweep over block and grid size at offset
// 11, the same kernels built with -G against the release build (both
// through lab/access's one source), and managed working sets near the free
// device memory with pages kept on the host.
#include "memory/memory_run.cuh"

#include "access/access.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

namespace {

using namespace cupat_memlab;

constexpr size_t OFFSET = 11; // PCCP 4.3's misaligned offset: 44 bytes

// a[i] = i % 1000, b[i] = i % 7: sums exact in float.
__global__ void k_fill_ab(float *a, float *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        a[i] = (float)(i % 1000);
        b[i] = (float)(i % 7);
    }
}

struct Offset {
    size_t n;
    float *a, *b, *c, *host;
};

cupat_status offset_setup(Run &X, Bufs &b, Offset &O, size_t n)
{
    O.n = n;
    O.host = (float *)malloc(n * 4);
    if (!O.host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    CK(b.alloc((void **)&O.a, n * 4));
    CK(b.alloc((void **)&O.b, n * 4));
    CK(b.alloc((void **)&O.c, n * 4));
    k_fill_ab<<<X.sms * 8, 256, 0, X.s>>>(O.a, O.b, n);
    return LAUNCHED("k_fill_ab");
}

// c poisoned, launched reps + 1 times, then c[i] = a[i + 11] + b[i + 11]
// checked for every i < n - 11. GB/s of the 12 bytes an element moves.
template <class L> cupat_status offset_row(Run &X, Offset &O, lab_mem_row *r, L launch)
{
    const size_t m = O.n - OFFSET;
    CK(fill(X.s, O.c, 0xFF, O.n * 4));
    CUPAT_TRY(time_row(X, r, 12.0 * (double)m, launch));
    CK(copy(X.s, O.host, O.c, O.n * 4));
    r->ok = 1;
    for (size_t i = 0; i < m && r->ok; i++)
        if (O.host[i] != (float)((i + OFFSET) % 1000 + (i + OFFSET) % 7)) {
            r->ok = 0;
            snprintf(r->note, sizeof r->note, "c[%zu] = %g, expected %g", i, (double)O.host[i],
                     (double)((i + OFFSET) % 1000 + (i + OFFSET) % 7));
        }
    return CUPAT_SUCCESS;
}

} // namespace

// ---- segment (PCCP 4.3, "Exposing More Parallelism") ------------------------------------------

// The book: ./readSegmentUnroll 11 <block> 22, grid = 2^22 / (4 x block).
// Here 2^24 elements: the book's 2^22 (three arrays, 48 MiB) would stay in
// the H100's 50 MB L2 from one timed launch to the next.
cupat_status cupat_memlab::exp_segment(Run &X)
{
    static const unsigned blocks[] = {1024, 512, 256, 128};
    static const double book_s[] = {0.000184, 0.000162, 0.000162, 0.000162};
    static const int per_sm[] = {1, 2, 4, 8, 16, 32};
    const double book_bytes = 12.0 * (double)((size_t)1 << 22);
    Bufs b;
    Offset O = {};
    cupat_status s = offset_setup(X, b, O, (size_t)1 << 24);
    const size_t m = O.n - OFFSET;
    for (int k = 0; k < 4 && !s; k++) {
        const unsigned blk = blocks[k], grid = (unsigned)((m + 4 * (size_t)blk - 1) / (4 * (size_t)blk));
        lab_mem_row *r = add(X, "unroll4 <<<%u, %u>>>", grid, blk);
        s = offset_row(X, O, r, [&]() -> cupat_status {
            return cupat__lab_offset_grid(X.ctx, LAB_READ_OFFSET_UNROLL4, O.a, O.b, O.c, O.n, OFFSET, blk, 0);
        });
        if (!s && r->ok)
            snprintf(r->note, sizeof r->note, "PCCP, 2^22 elements: <<<%u, %u>>> %.6f s (%.0f GB/s); here 2^24",
                     (unsigned)(((size_t)1 << 22) / (4 * blk)), blk, book_s[k], book_bytes / book_s[k] * 1e-9);
    }
    // The grid: fewer blocks of 512, each thread looping (grid-stride) over the rest.
    for (int k = 0; k < 6 && !s; k++) {
        const unsigned grid = (unsigned)(per_sm[k] * X.sms);
        lab_mem_row *r = add(X, "unroll4 <<<%u, 512>>> (%d a SM)", grid, per_sm[k]);
        s = offset_row(X, O, r, [&]() -> cupat_status {
            return cupat__lab_offset_grid(X.ctx, LAB_READ_OFFSET_UNROLL4, O.a, O.b, O.c, O.n, OFFSET, 512, grid);
        });
        if (!s && r->ok)
            snprintf(r->note, sizeof r->note, "grid-stride: %.1f passes of 4 elements a thread; %d warps an SM at most",
                     (double)m / (4.0 * grid * 512), per_sm[k] * 16 > 64 ? 64 : per_sm[k] * 16);
    }
    free(O.host);
    return s;
}

// ---- debug: the -G build (PCCP 4.3, "Performance Tuning") ------------------------------------

cupat_status cupat_memlab::exp_debug(Run &X)
{
    static const struct {
        int kind, debug;
        const char *name;
        double book_ms;
    } rows[] = {
        {LAB_READ_OFFSET, 0, "readOffset, release", 9.08116},
        {LAB_READ_OFFSET_UNROLL4, 0, "readOffsetUnroll4, release", 9.13725},
        {LAB_READ_OFFSET, 1, "readOffset, -G", 11.7668},
        {LAB_READ_OFFSET_UNROLL4, 1, "readOffsetUnroll4, -G", 9.64555},
    };
    Bufs b;
    Offset O = {};
    cupat_status s = offset_setup(X, b, O, (size_t)1 << 24);
    double release_ms[2] = {0, 0};
    for (int k = 0; k < 4 && !s; k++) {
        lab_mem_row *r = add(X, "%s", rows[k].name);
        s = offset_row(X, O, r, [&]() -> cupat_status {
            return rows[k].debug
                       ? cupat__lab_offset_debug(X.ctx, rows[k].kind, O.a, O.b, O.c, O.n, OFFSET, 512, 0)
                       : cupat__lab_offset_grid(X.ctx, rows[k].kind, O.a, O.b, O.c, O.n, OFFSET, 512, 0);
        });
        if (s || !r->ok) continue;
        if (!rows[k].debug) release_ms[k] = r->ms;
        snprintf(r->note, sizeof r->note, "PCCP's notes: %.2f ms (%s, their size)", rows[k].book_ms,
                 rows[k].debug ? "-g -G -O0" : "-O3");
        if (rows[k].debug && release_ms[k - 2] > 0)
            note(r, "; %.2fx the release time (notes: %.2fx)", r->ms / release_ms[k - 2],
                 rows[k].book_ms / rows[k - 2].book_ms);
    }
    free(O.host);
    return s;
}

// ---- oversub: managed memory near the free device memory --------------------------------------

namespace {

size_t host_available()
{
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

double gib(size_t b)
{
    return (double)b / (double)((size_t)1 << 30);
}

// When the host fills a managed buffer with 1-bytes: before each launch,
// once before the first, or not at all (it holds them already).
enum { WRITE_EACH, WRITE_ONCE, WRITE_NONE };

// One managed buffer of `bytes` read by a kernel `reps` times: the median
// kernel time. *on_dev: how much device memory the buffer took meanwhile.
cupat_status managed_row(Run &X, lab_mem_row *r, unsigned *m, size_t bytes, int writes, int reps, unsigned *dsum,
                         size_t *on_dev)
{
    const size_t n = bytes / 4;
    size_t free0 = 0, free1 = 0, tot = 0;
    if (writes == WRITE_ONCE) memset(m, 1, bytes);
    CK(cudaMemGetInfo(&free0, &tot));
    for (int rep = 0; rep < reps; rep++) {
        if (writes == WRITE_EACH) memset(m, 1, bytes); // the pages move (back) to the host
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        const cudaError_t e = cudaEventCreate(&e1);
        if (e) {
            cudaEventDestroy(e0);
            return cupat__cuda(X.ctx, e, "cudaEventCreate");
        }
        cupat_status s = cupat__cuda(X.ctx, cudaEventRecord(e0, X.s), "cudaEventRecord");
        if (!s) s = sum_u32(X, m, n, dsum);
        if (!s) s = cupat__cuda(X.ctx, cudaEventRecord(e1, X.s), "cudaEventRecord");
        if (!s) s = cupat__cuda(X.ctx, cudaEventSynchronize(e1), "cudaEventSynchronize");
        if (!s) s = cupat__cuda(X.ctx, cudaEventElapsedTime(&X.t[rep], e0, e1), "cudaEventElapsedTime");
        cudaEventDestroy(e0), cudaEventDestroy(e1);
        CUPAT_TRY(s);
    }
    unsigned got = 0;
    CK(copy(X.s, &got, dsum, 4));
    CK(cudaMemGetInfo(&free1, &tot));
    *on_dev = free0 > free1 ? free0 - free1 : 0;
    r->ms = median(X.t, reps);
    r->value = r->ms > 0 ? (double)bytes / (r->ms * 1e-3) * 1e-9 : 0;
    r->ok = got == (unsigned)n * 0x01010101u;
    if (!r->ok) snprintf(r->note, sizeof r->note, "sum %u, expected %u", got, (unsigned)n * 0x01010101u);
    return CUPAT_SUCCESS;
}

} // namespace

cupat_status cupat_memlab::exp_oversub(Run &X)
{
    static const int pct[] = {25, 50, 90};
    const int reps = X.reps < 3 ? X.reps : 3; // each launch moves up to 90 % of the free memory
    size_t free0 = 0, tot = 0, fr = 0;
    int dev = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaMemGetInfo(&free0, &tot));
    void *ballast = nullptr; // freed at the end: no early return past here
    const size_t margin = (size_t)256 << 20;
    if (X.opts.um_free && free0 > X.opts.um_free + margin) {
        if (cudaMalloc(&ballast, free0 - X.opts.um_free) != cudaSuccess) {
            cudaGetLastError(); // the run goes on without it (the note says so)
            ballast = nullptr;
        }
    }
    const cudaMemLocation on_dev = {cudaMemLocationTypeDevice, dev}, on_host = {cudaMemLocationTypeHost, 0};
    cupat_status s = cupat__cuda(X.ctx, cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
    const size_t cap = (size_t)1 << 30, base = ballast ? fr : fr < cap ? fr : cap, host = host_available();
    size_t sizes[3];
    lab_memory_um_sizes(base, host, pct, 3, sizes);
    Bufs b;
    unsigned *dsum = nullptr;
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&dsum, 4), "cudaMalloc");
    char what[96];
    if (ballast) snprintf(what, sizeof what, "of the %.2f GiB free (a ballast holds the rest)", gib(base));
    else snprintf(what, sizeof what, "of %.2f GiB (min(free, 1 GiB); --um-free for all of it)", gib(base));
    // Fault-driven migration as the working set nears the free memory.
    for (int k = 0; k < 3 && !s; k++) {
        lab_mem_row *r = add(X, "%d %% of free: host-written, faulted over", pct[k]);
        if (sizes[k] == 0) {
            snprintf(r->note, sizeof r->note, "skipped: under 2 MiB (free %.2f GiB, host %.2f GiB)", gib(base), gib(host));
            continue;
        }
        unsigned *m = nullptr;
        s = cupat__cuda(X.ctx, cudaMallocManaged((void **)&m, sizes[k]), "cudaMallocManaged");
        size_t resident = 0;
        if (!s) s = managed_row(X, r, m, sizes[k], WRITE_EACH, reps, dsum, &resident);
        if (!s && r->ok)
            snprintf(r->note, sizeof r->note, "%.2f GiB %s; %.2f GiB on the device after the kernel", gib(sizes[k]), what,
                     gib(resident));
        if (m) cudaFree(m);
    }
    // The largest set kept on the host: every pass reads over the link, as
    // pages evicted by oversubscription would be; then the same pages
    // prefetched to the device, for comparison.
    const size_t big = sizes[2];
    if (!s && big) {
        unsigned *m = nullptr;
        s = cupat__cuda(X.ctx, cudaMallocManaged((void **)&m, big), "cudaMallocManaged");
        if (!s) s = cupat__cuda(X.ctx, cudaMemAdvise(m, big, cudaMemAdviseSetPreferredLocation, on_host), "cudaMemAdvise");
        if (!s) s = cupat__cuda(X.ctx, cudaMemAdvise(m, big, cudaMemAdviseSetAccessedBy, on_dev), "cudaMemAdvise");
        if (!s) {
            lab_mem_row *r = add(X, "90 %%, preferred on the host + accessed-by");
            size_t resident = 0;
            s = managed_row(X, r, m, big, WRITE_ONCE, reps, dsum, &resident);
            if (!s && r->ok)
                snprintf(r->note, sizeof r->note, "%.2f GiB read over the link every pass (%d passes); %.0f MiB on the device",
                         gib(big), reps, (double)resident / (1 << 20));
        }
        if (!s) s = cupat__cuda(X.ctx, cudaMemAdvise(m, big, cudaMemAdviseUnsetAccessedBy, on_dev), "cudaMemAdvise");
        if (!s)
            s = cupat__cuda(X.ctx, cudaMemAdvise(m, big, cudaMemAdviseUnsetPreferredLocation, on_host), "cudaMemAdvise");
        if (!s) s = cupat__cuda(X.ctx, cudaMemPrefetchAsync(m, big, on_dev, 0, X.s), "cudaMemPrefetchAsync");
        if (!s) s = cupat__cuda(X.ctx, cudaStreamSynchronize(X.s), "cudaStreamSynchronize");
        if (!s) {
            lab_mem_row *r = add(X, "90 %%, prefetched to the device");
            size_t resident = 0;
            s = managed_row(X, r, m, big, WRITE_NONE, reps, dsum, &resident);
            if (!s && r->ok) snprintf(r->note, sizeof r->note, "the same %.2f GiB resident: HBM speed, for comparison", gib(big));
        }
        if (m) cudaFree(m);
    }
    if (ballast) cudaFree(ballast);
    return s;
}
