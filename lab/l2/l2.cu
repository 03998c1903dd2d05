// SPDX-License-Identifier: Apache-2.0
// l2.cu — the kernels of `cupat lab l2` and their host halves (buffers, the
// set-aside and the windows, timing, checks); the experiment table, the
// host models and the build rows are in l2_lab.c, the sm_90a kernel in
// l2_sm90a.cu.
//
// Every buffer is 16-byte elements of lab_l2_word values (never zeros), and
// every kernel adds the words it read into one 64-bit sum (mod 2^64: the
// order of the additions does not change it), which the host recomputes:
// a row's check is its kernel's sum. The L2 experiments change device-wide
// state (the persisting limit, the persisting lines) and the context
// stream's window; each puts them back before it returns, error or not.
#include "l2/l2.h"

#include "cupat_warp.cuh"
#include "internal.h"
#include "lab_timing.cuh"

#include <chrono>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// l2_sm90a.cu (built for sm_90a alone)
extern "C" cudaError_t cupat__lab_l2_sm90a_attributes(cudaFuncAttributes *fa);
extern "C" cudaError_t cupat__lab_l2_sm90a_launch(cudaStream_t s, int blocks, uint32_t *out, int *arch);

namespace {

using cupat_lab::Bufs;
using cupat_lab::copy;
using cupat_lab::fill;
using cupat_lab::median;
using cupat_lab::timed;

constexpr int BLOCK = 256;
// The stream that evicts: 1 GiB, 20x the H100's 50 MiB of L2.
constexpr size_t NS = ((size_t)1 << 30) / 16;
enum : uint32_t { SEED_S = 1, SEED_P = 2, SEED_Q = 3 };
constexpr double MIB = 1024.0 * 1024.0;

struct Run : cupat_lab::RunBase {
    int dev, major, minor;
    int grid;                // a full resident wave of the read kernels
    size_t l2, maxp, maxw;   // cudaDevAttrL2CacheSize, MaxPersistingL2CacheSize, MaxAccessPolicyWindowSize
    size_t limit0;           // the persisting limit found (put back)
    int begun;               // limit0 read and the limit changed
    size_t setaside;         // granted for the Guide's size
    unsigned long long *sum; // [0] a row's measured sum, [1] set-up kernels' (unchecked)
};

lab_row *add(Run &X, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lab_row *r = lab_row_vadd(X.rows, X.n, fmt, ap);
    va_end(ap);
    return r;
}

// ============================================================ kernels ====

__global__ void __launch_bounds__(BLOCK) k_fill(uint4 *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK) {
        const uint64_t w = 4 * (uint64_t)i;
        p[i] = make_uint4(lab_l2_word(seed, w), lab_l2_word(seed, w + 1), lab_l2_word(seed, w + 2),
                          lab_l2_word(seed, w + 3));
    }
}

__device__ __forceinline__ unsigned long long sum4(uint4 v)
{
    return (unsigned long long)v.x + v.y + v.z + v.w;
}

// One atomic a block: the warps' sums, then warp 0's of them.
__device__ void block_add(unsigned long long v, unsigned long long *out)
{
    __shared__ unsigned long long part[BLOCK / 32];
    v = cupat_dev::warp_reduce(v, cupat_dev::OpSum());
    if (cupat_dev::lane_id() == 0) part[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? part[threadIdx.x] : 0;
        v = cupat_dev::warp_reduce(v, cupat_dev::OpSum());
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}

// The Guide's experiment: the stream S read once, and beside each element
// of it one element of the region P, taken cyclically (element i of S with
// element i % np of P). Between two reads of a P element the kernel reads np
// elements of S and np of P: 2 x P's size of traffic, more than the L2 once
// P is a good part of it, so without a window the stream evicts P before
// its next use; with a persisting window over P, P's lines stay in the
// set-aside.
__global__ void __launch_bounds__(BLOCK) k_mixed(const uint4 *__restrict__ S, size_t ns, const uint4 *__restrict__ P,
                                                 size_t np, unsigned long long *out)
{
    const size_t stride = (size_t)gridDim.x * BLOCK, step = stride % np;
    size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x, j = i % np;
    unsigned long long acc = 0;
    for (; i < ns; i += stride) {
        acc += sum4(S[i]) + sum4(P[j]);
        j += step; // j = i % np without a division a step
        if (j >= np) j -= np;
    }
    block_add(acc, out);
}

// `passes` reads of p[0, n) one after the other.
__global__ void __launch_bounds__(BLOCK) k_read(const uint4 *__restrict__ p, size_t n, int passes,
                                                unsigned long long *out)
{
    unsigned long long acc = 0;
    for (int k = 0; k < passes; k++)
        for (size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK)
            acc += sum4(p[i]);
    block_add(acc, out);
}

// The feature-set row of this file's targets: __CUDA_ARCH__ and whether the
// compiler said the architecture-specific set was there.
__global__ void k_arch(int *out)
{
#ifdef __CUDA_ARCH__
    if (threadIdx.x == 0) {
        out[0] = __CUDA_ARCH__;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
        out[1] = 1;
#else
        out[1] = 0;
#endif
    }
#endif
}

// ======================================================= the window ====

cudaAccessPolicyWindow win(const void *p, size_t bytes, float hit, cudaAccessProperty hp = cudaAccessPropertyPersisting,
                           cudaAccessProperty mp = cudaAccessPropertyStreaming)
{
    cudaAccessPolicyWindow w;
    memset(&w, 0, sizeof w);
    w.base_ptr = const_cast<void *>(p);
    w.num_bytes = bytes;
    w.hitRatio = hit;
    w.hitProp = hp;
    w.missProp = mp;
    return w;
}

cudaError_t stream_window(cudaStream_t s, const cudaAccessPolicyWindow &w)
{
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow = w;
    return cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
}

// No window: zero bytes, normal both ways (at a live allocation: the run's
// sum, so that no freed address stays in the stream's attribute).
cudaError_t no_window(const Run &X)
{
    return stream_window(X.s, win(X.sum, 0, 0.f, cudaAccessPropertyNormal, cudaAccessPropertyNormal));
}

// Between rows: no window, and every persisting line made normal again
// (cudaCtxResetPersistingL2Cache is not stream-ordered: the stream drained
// first), so that no row inherits the last one's persisting lines.
cupat_status fresh(Run &X)
{
    CK(cudaStreamSynchronize(X.s));
    CK(no_window(X));
    CK(cudaCtxResetPersistingL2Cache());
    return CUPAT_SUCCESS;
}

// The Guide's set-aside for the L2 experiments: min(3/4 L2, the max); what
// cudaDeviceGetLimit grants is X.setaside.
cupat_status begin(Run &X)
{
    CK(cudaDeviceGetLimit(&X.limit0, cudaLimitPersistingL2CacheSize));
    X.begun = 1;
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, lab_l2_guide_setaside(X.l2, X.maxp)));
    CK(cudaDeviceGetLimit(&X.setaside, cudaLimitPersistingL2CacheSize));
    return CUPAT_SUCCESS;
}

// Put back what begin() and the rows changed; every step tried, the first
// error kept.
cupat_status undo(Run &X, cupat_status s)
{
    cudaError_t e[4] = {cudaStreamSynchronize(X.s), no_window(X), cudaCtxResetPersistingL2Cache(), cudaSuccess};
    if (X.begun) e[3] = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, X.limit0);
    X.begun = 0;
    static const char *const what[4] = {"cudaStreamSynchronize", "clearing the stream's window",
                                        "cudaCtxResetPersistingL2Cache", "cudaDeviceSetLimit(persisting, back)"};
    for (int k = 0; k < 4; k++)
        if (e[k] != cudaSuccess && !s) s = cupat__cuda(X.ctx, e[k], what[k]);
    return s;
}

// ============================================================ helpers ====

// The stream's words summed on the host (2^28 of them: computed once).
uint64_t stream_sum()
{
    static int have;
    static uint64_t v;
    if (!have) v = lab_l2_sum_words(SEED_S, 0, 4 * (uint64_t)NS), have = 1;
    return v;
}

cupat_status fill_seed(Run &X, uint4 *p, size_t n, uint32_t seed)
{
    k_fill<<<X.grid, BLOCK, 0, X.s>>>(p, n, seed);
    return cupat__launched(X.ctx, "k_fill");
}

cupat_status launch_mixed(Run &X, const uint4 *S, const uint4 *P, size_t np, unsigned long long *out)
{
    k_mixed<<<X.grid, BLOCK, 0, X.s>>>(S, NS, P, np, out);
    return cupat__launched(X.ctx, "k_mixed");
}

cupat_status launch_read(Run &X, const uint4 *p, size_t n, int passes, unsigned long long *out)
{
    k_read<<<X.grid, BLOCK, 0, X.s>>>(p, n, passes, out);
    return cupat__launched(X.ctx, "k_read");
}

// Time reps + 1 launches (the first untimed) into row r, each adding `want`
// into X.sum[0]; the check: (reps + 1) x want. GB/s of `bytes` a launch.
template <class L> cupat_status measure(Run &X, lab_row *r, uint64_t want, double bytes, L launch)
{
    CK(fill(X.s, X.sum, 0, sizeof(unsigned long long)));
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, launch));
    r->ms = median(X.t, X.reps);
    r->value = r->ms > 0 ? bytes / (r->ms * 1e-3) * 1e-9 : 0;
    unsigned long long got = 0;
    CK(copy(X.s, &got, X.sum, sizeof got));
    const uint64_t exp = want * (uint64_t)(X.reps + 1);
    r->ok = got == exp;
    if (!r->ok) lab_row_note(r, "sum %llu, want %llu (x%d launches); ", got, (unsigned long long)exp, X.reps + 1);
    return CUPAT_SUCCESS;
}

// Time one launch right after a set-up that is redone before every rep
// (state the measured read destroys: which lines are in the L2). The set-up
// ends with a long kernel, so the events and the measured launch are queued
// behind it and nothing waits on the host between them. X.sum[0] is zeroed
// before each set-up (which adds into X.sum[1] only); the last rep's sum is
// checked.
template <class S, class L> cupat_status measure_after(Run &X, lab_row *r, uint64_t want, double bytes, S setup, L launch)
{
    cudaEvent_t a = nullptr, b = nullptr;
    cupat_status s = cupat__cuda(X.ctx, cudaEventCreate(&a), "cudaEventCreate");
    if (!s) s = cupat__cuda(X.ctx, cudaEventCreate(&b), "cudaEventCreate");
    for (int k = 0; k < X.reps && !s; k++) {
        s = cupat__cuda(X.ctx, fill(X.s, X.sum, 0, sizeof(unsigned long long)), "cudaMemsetAsync");
        if (!s) s = setup();
        if (!s) s = cupat__cuda(X.ctx, cudaEventRecord(a, X.s), "cudaEventRecord");
        if (!s) s = launch();
        if (!s) s = cupat__cuda(X.ctx, cudaEventRecord(b, X.s), "cudaEventRecord");
        if (!s) s = cupat__cuda(X.ctx, cudaEventSynchronize(b), "cudaEventSynchronize");
        if (!s) s = cupat__cuda(X.ctx, cudaEventElapsedTime(&X.t[k], a, b), "cudaEventElapsedTime");
    }
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    CUPAT_TRY(s);
    r->ms = median(X.t, X.reps);
    r->value = r->ms > 0 ? bytes / (r->ms * 1e-3) * 1e-9 : 0;
    unsigned long long got = 0;
    CK(copy(X.s, &got, X.sum, sizeof got));
    r->ok = got == want;
    if (!r->ok) lab_row_note(r, "sum %llu, want %llu; ", got, (unsigned long long)want);
    return CUPAT_SUCCESS;
}

// The median host wall time of `call` (an API call, not stream-ordered
// work), after `setup`, in ms.
template <class S, class C> cupat_status host_time(Run &X, lab_row *r, S setup, C call)
{
    for (int k = 0; k < X.reps; k++) {
        CUPAT_TRY(setup());
        const auto t0 = std::chrono::steady_clock::now();
        CUPAT_TRY(call());
        const auto t1 = std::chrono::steady_clock::now();
        X.t[k] = (float)std::chrono::duration<double, std::milli>(t1 - t0).count();
    }
    r->ms = median(X.t, X.reps);
    r->value = r->ms * 1e3;
    return CUPAT_SUCCESS;
}

// A window's bytes: the region's, at most the device's largest window.
size_t window_bytes(const Run &X, size_t region)
{
    return region < X.maxw ? region : X.maxw;
}

void note_clip(const Run &X, lab_row *r, size_t region)
{
    if (region > X.maxw)
        lab_row_note(r, "window cut to the largest (%.1f of %.1f MiB); ", X.maxw / MIB, region / MIB);
}

// ========================================================== setaside ====

cupat_status exp_setaside(Run &X)
{
    lab_row *r = add(X, "cudaDevAttrL2CacheSize");
    r->value = (double)X.l2;
    lab_row_note(r, "%.2f MiB", X.l2 / MIB);
    r = add(X, "cudaDevAttrMaxPersistingL2CacheSize");
    r->value = (double)X.maxp;
    lab_row_note(r, "%.2f MiB = %.1f%% of the L2: the largest set-aside", X.maxp / MIB, 100.0 * X.maxp / X.l2);
    r = add(X, "cudaDevAttrMaxAccessPolicyWindowSize");
    r->value = (double)X.maxw;
    lab_row_note(r, "%.2f MiB: the largest num_bytes of a window", X.maxw / MIB);
    size_t start = 0;
    CK(cudaDeviceGetLimit(&start, cudaLimitPersistingL2CacheSize));
    r = add(X, "cudaDeviceGetLimit(PersistingL2CacheSize) at start");
    r->value = (double)start;
    lab_row_note(r, "%.2f MiB set aside before the lab", start / MIB);

    const size_t guide = lab_l2_guide_setaside(X.l2, X.maxp);
    const struct {
        const char *what;
        size_t bytes;
    } asks[] = {
        {"0 (no set-aside)", 0},
        {"1 byte", 1},
        {"1 MiB + 1 byte", ((size_t)1 << 20) + 1},
        {"the Guide's min(3/4 L2, max)", guide},
        {"the max", X.maxp},
        {"twice the max", 2 * X.maxp},
    };
    cupat_status s = CUPAT_SUCCESS;
    for (const auto &a : asks) {
        r = add(X, "set %s, read back", a.what);
        if (a.bytes > X.maxp && lab_sanitizer()[0]) { // the refusal is an API error to the tool
            r->ok = 1;
            lab_row_note(r, "not asked under %s (its refusal counts as an API error there)", lab_sanitizer());
            continue;
        }
        const cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, a.bytes);
        if (e != cudaSuccess) cudaGetLastError();
        size_t got = 0;
        const cudaError_t g = cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize);
        if (g != cudaSuccess) {
            s = cupat__cuda(X.ctx, g, "cudaDeviceGetLimit(cudaLimitPersistingL2CacheSize)");
            break;
        }
        r->value = (double)got;
        if (e != cudaSuccess) {
            // refused: right only beyond the max (under MPS every set is refused:
            // CUDA_DEVICE_DEFAULT_PERSISTING_L2_CACHE_PERCENTAGE_LIMIT sets it)
            r->ok = a.bytes > X.maxp;
            lab_row_note(r, "asked %zu B: refused, %s; the limit stays %zu B%s", a.bytes, cudaGetErrorName(e), got,
                         a.bytes > X.maxp ? "" : " (under MPS only CUDA_DEVICE_DEFAULT_PERSISTING_L2_CACHE_PERCENTAGE_LIMIT sets it)");
            continue;
        }
        r->ok = got <= X.maxp && (a.bytes != 0 || got == 0);
        const char *how = got == a.bytes ? "as asked" : got > a.bytes ? "rounded up" : "rounded down / clamped";
        lab_row_note(r, "asked %zu B, granted %zu B (%.3f MiB): %s", a.bytes, got, got / MIB, how);
        if (got != a.bytes)
            lab_row_note(r, " by %zu B", got > a.bytes ? got - a.bytes : a.bytes - got);
        if (got > X.maxp) lab_row_note(r, "; MORE than the max");
    }
    // put back what was there, and see that it is
    const cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, start);
    size_t back = 0;
    const cudaError_t g = cudaDeviceGetLimit(&back, cudaLimitPersistingL2CacheSize);
    CUPAT_TRY(s);
    CK(e);
    CK(g);
    r = add(X, "put back the limit found at start");
    r->value = (double)back;
    r->ok = back == start;
    lab_row_note(r, "set %zu B, read back %zu B", start, back);
    return CUPAT_SUCCESS;
}

// ========================================================== hitratio ====

// The region P (np elements) and the stream S, filled.
struct Data {
    Bufs B;
    uint4 *S = nullptr, *P = nullptr, *Q = nullptr;
};

cupat_status alloc_fill(Run &X, Data &D, size_t np, size_t nq)
{
    CK(D.B.alloc((void **)&D.S, NS * 16));
    CK(D.B.alloc((void **)&D.P, np * 16));
    CUPAT_TRY(fill_seed(X, D.S, NS, SEED_S));
    CUPAT_TRY(fill_seed(X, D.P, np, SEED_P));
    if (nq) {
        CK(D.B.alloc((void **)&D.Q, nq * 16));
        CUPAT_TRY(fill_seed(X, D.Q, nq, SEED_Q));
    }
    CK(cudaStreamSynchronize(X.s));
    return CUPAT_SUCCESS;
}

// The region of 1x the set-aside, filled, and its row read beside the
// stream with no window: the baseline the window rows are set against.
struct Baseline {
    size_t np, pb, wb;  // region elements, bytes, the window's bytes
    uint64_t want;      // the kernel's expected sum
    double bytes, ms;   // traffic a launch, the baseline's time
};
cupat_status baseline_row(Run &X, Data &D, const char *prefix, const char *note, Baseline &b)
{
    b.np = X.setaside / 16, b.pb = b.np * 16, b.wb = window_bytes(X, b.pb);
    CUPAT_TRY(alloc_fill(X, D, b.np, 0));
    b.want = stream_sum() + lab_l2_expect_cyclic(SEED_P, b.np, NS);
    b.bytes = 2.0 * NS * 16;
    lab_row *r = add(X, "%sno window (region %.1f MiB = 1x the set-aside)", prefix, b.pb / MIB);
    CUPAT_TRY(fresh(X));
    CUPAT_TRY(measure(X, r, b.want, b.bytes, [&]() { return launch_mixed(X, D.S, D.P, b.np, X.sum); }));
    b.ms = r->ms;
    lab_row_note(r, "%s", note);
    return CUPAT_SUCCESS;
}

cupat_status hitratio_rows(Run &X, Data &D)
{
    Baseline b;
    CUPAT_TRY(baseline_row(X, D, "", "the region read beside a 1 GiB stream, element for element; the baseline", b));
    const size_t np = b.np, wb = b.wb;
    const uint64_t want = b.want;
    const double bytes = b.bytes, base = b.ms;
    lab_row *r;
    static const float hits[] = {0.f, 0.25f, 0.5f, 0.75f, 1.f};
    for (float h : hits) {
        r = add(X, "window over the region, hitRatio %.2f", h);
        CUPAT_TRY(fresh(X));
        CK(stream_window(X.s, win(D.P, wb, h)));
        CUPAT_TRY(measure(X, r, want, bytes, [&]() { return launch_mixed(X, D.S, D.P, np, X.sum); }));
        note_clip(X, r, b.pb);
        if (r->ms > 0 && base > 0)
            lab_row_note(r, "%.3fx the no-window time; hitProp persisting, missProp streaming", r->ms / base);
    }
    return CUPAT_SUCCESS;
}

cupat_status exp_hitratio(Run &X)
{
    Data D;
    cupat_status s = hitratio_rows(X, D);
    return undo(X, s);
}

// ============================================================ window ====

cupat_status window_rows(Run &X, Data &D)
{
    const size_t npmax = 4 * X.setaside / 16;
    CUPAT_TRY(alloc_fill(X, D, npmax, 0));
    const double bytes = 2.0 * NS * 16;
    static const double sizes[] = {0.5, 1, 2, 4};
    for (double f : sizes) {
        const size_t np = (size_t)(f * (double)X.setaside) / 16, pb = np * 16, wb = window_bytes(X, pb);
        const uint64_t want = stream_sum() + lab_l2_expect_cyclic(SEED_P, np, NS);
        lab_row *r = add(X, "%.1fx set-aside (%.1f MiB): no window", f, pb / MIB);
        CUPAT_TRY(fresh(X));
        CUPAT_TRY(measure(X, r, want, bytes, [&]() { return launch_mixed(X, D.S, D.P, np, X.sum); }));
        const double base = r->ms;
        lab_row_note(r, "the baseline of this size");
        const double tuned = lab_l2_tuned_hit_ratio(X.setaside, wb);
        const float ratios[2] = {1.f, (float)tuned};
        for (int k = 0; k < (tuned < 1 ? 2 : 1); k++) {
            r = add(X, "%.1fx set-aside (%.1f MiB): hitRatio %.3f", f, pb / MIB, ratios[k]);
            CUPAT_TRY(fresh(X));
            CK(stream_window(X.s, win(D.P, wb, ratios[k])));
            CUPAT_TRY(measure(X, r, want, bytes, [&]() { return launch_mixed(X, D.S, D.P, np, X.sum); }));
            note_clip(X, r, pb);
            if (r->ms > 0 && base > 0) lab_row_note(r, "%.3fx the no-window time", r->ms / base);
            if (k) lab_row_note(r, " (set-aside / window: the Guide's tuning)");
        }
    }
    return CUPAT_SUCCESS;
}

cupat_status exp_window(Run &X)
{
    Data D;
    cupat_status s = window_rows(X, D);
    return undo(X, s);
}

// ============================================================= reset ====

cupat_status reset_rows(Run &X, Data &D)
{
    const size_t np = X.setaside / 16, pb = np * 16, wb = window_bytes(X, pb);
    // Q fits the whole L2 but not what persisting lines leave of it
    const size_t qb = X.l2 > X.setaside / 2 ? X.l2 - X.setaside / 2 : X.l2, nq = qb / 16;
    CUPAT_TRY(alloc_fill(X, D, np, nq));
    unsigned long long *junk = X.sum + 1;
    auto reset = [&]() -> cupat_status { return fresh(X); };
    auto stream = [&]() { return launch_read(X, D.S, NS, 1, junk); };
    // the region made persisting: read twice under a hitRatio 1 window, then no window
    auto warm = [&]() -> cupat_status {
        CK(stream_window(X.s, win(D.P, wb, 1.f)));
        CUPAT_TRY(launch_read(X, D.P, np, 2, junk));
        CK(no_window(X));
        return CUPAT_SUCCESS;
    };
    const uint64_t want_p = lab_l2_expect_cyclic(SEED_P, np, np);
    auto read_p = [&]() { return launch_read(X, D.P, np, 1, X.sum); };
    struct Case {
        const char *name;
        int warm, how; // how: 0 keep, 1 cudaCtxResetPersistingL2Cache, 2 hitProp Normal
        const char *note;
    };
    static const Case pc[] = {
        {"region never persisting, 1 GiB stream, read", 0, 0, "no window ever: its lines normal when the stream passes"},
        {"region persisting, window gone, stream, read", 1, 0,
         "window gone, its lines still persisting when the stream passes"},
        {"region reset (cudaCtxResetPersistingL2Cache), stream, read", 1, 1,
         "its lines reset to normal before the stream passes"},
        {"region touched under hitProp Normal, stream, read", 1, 2,
         "one read under a hitProp Normal window: its lines normal before the stream"},
    };
    for (const Case &c : pc) {
        lab_row *r = add(X, "%s", c.name);
        CUPAT_TRY(measure_after(
            X, r, want_p, (double)pb,
            [&]() -> cupat_status {
                CUPAT_TRY(reset());
                if (c.warm) CUPAT_TRY(warm());
                if (c.how == 1) CUPAT_TRY(reset());
                if (c.how == 2) {
                    CK(stream_window(X.s, win(D.P, wb, 1.f, cudaAccessPropertyNormal, cudaAccessPropertyNormal)));
                    CUPAT_TRY(launch_read(X, D.P, np, 1, junk));
                    CK(no_window(X));
                }
                return stream();
            },
            read_p));
        lab_row_note(r, "%.1f MiB read once: %s", pb / MIB, c.note);
    }
    const uint64_t want_q = lab_l2_expect_cyclic(SEED_Q, nq, 4 * (uint64_t)nq);
    static const Case qc[] = {
        {"normal Q, 4 passes, nothing persisting", 0, 0, "no persisting lines: the whole L2 open to Q"},
        {"normal Q, 4 passes, stale persisting lines", 1, 0,
         "the region's lines still persisting in the set-aside"},
        {"normal Q, 4 passes, after cudaCtxResetPersistingL2Cache", 1, 1, "the region's lines reset to normal before Q"},
    };
    for (const Case &c : qc) {
        lab_row *r = add(X, "%s", c.name);
        CUPAT_TRY(measure_after(
            X, r, want_q, 4.0 * (double)qb,
            [&]() -> cupat_status {
                CUPAT_TRY(reset());
                if (c.warm) CUPAT_TRY(warm());
                if (c.how == 1) CUPAT_TRY(reset());
                return stream();
            },
            [&]() { return launch_read(X, D.Q, nq, 4, X.sum); }));
        lab_row_note(r, "Q = %.1f MiB (L2 less half the set-aside): %s", qb / MIB, c.note);
    }
    // what the calls cost the host (library code that sets and undoes a
    // window every call pays these: docs/sparse.md's x_in_l2)
    lab_row *r = add(X, "host: cudaCtxResetPersistingL2Cache()");
    CUPAT_TRY(host_time(
        X, r,
        [&]() -> cupat_status {
            CUPAT_TRY(reset());
            CUPAT_TRY(warm());
            CK(cudaStreamSynchronize(X.s));
            return CUPAT_SUCCESS;
        },
        [&]() -> cupat_status {
            CK(cudaCtxResetPersistingL2Cache());
            return CUPAT_SUCCESS;
        }));
    lab_row_note(r, "host wall time, us in the figure column; the region's lines persisting before each call");
    r = add(X, "host: cudaStreamSetAttribute, window set and cleared");
    CUPAT_TRY(host_time(
        X, r, [&]() { return reset(); },
        [&]() -> cupat_status {
            CK(stream_window(X.s, win(D.P, wb, 1.f)));
            CK(no_window(X));
            return CUPAT_SUCCESS;
        }));
    lab_row_note(r, "host wall time of the two calls, us in the figure column");
    r = add(X, "host: cudaDeviceSetLimit(persisting) to 0 and back");
    CUPAT_TRY(host_time(
        X, r, [&]() { return reset(); },
        [&]() -> cupat_status {
            CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
            CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, X.setaside));
            return CUPAT_SUCCESS;
        }));
    size_t back = 0;
    CK(cudaDeviceGetLimit(&back, cudaLimitPersistingL2CacheSize));
    r->ok = back == X.setaside;
    lab_row_note(r, "host wall time of the two calls, us in the figure column; limit back to %zu B (read %zu B)",
                 X.setaside, back);
    return CUPAT_SUCCESS;
}

cupat_status exp_reset(Run &X)
{
    Data D;
    cupat_status s = reset_rows(X, D);
    return undo(X, s);
}

// ============================================================ launch ====

// cudaLaunchKernelEx of k_mixed with the window as a launch attribute.
cupat_status launch_ex(Run &X, const Data &D, size_t np, const cudaAccessPolicyWindow &w)
{
    cudaLaunchAttribute a[1];
    memset(a, 0, sizeof a);
    a[0].id = cudaLaunchAttributeAccessPolicyWindow;
    a[0].val.accessPolicyWindow = w;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(X.grid);
    c.blockDim = dim3(BLOCK);
    c.stream = X.s;
    c.attrs = a;
    c.numAttrs = 1;
    const uint4 *S = D.S, *P = D.P;
    const cudaError_t e = cudaLaunchKernelEx(&c, k_mixed, S, NS, P, np, X.sum);
    return e == cudaSuccess ? CUPAT_SUCCESS : cupat__cuda(X.ctx, e, "cudaLaunchKernelEx(k_mixed, access policy window)");
}

// The stream's window as cudaStreamGetAttribute reads it.
cupat_status stream_window_of(Run &X, cudaAccessPolicyWindow *w)
{
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    CK(cudaStreamGetAttribute(X.s, cudaStreamAttributeAccessPolicyWindow, &v));
    *w = v.accessPolicyWindow;
    return CUPAT_SUCCESS;
}

cupat_status launch_rows(Run &X, Data &D)
{
    Baseline b;
    CUPAT_TRY(baseline_row(X, D, "<<< >>>, ", "the baseline", b));
    const size_t np = b.np, wb = b.wb;
    const uint64_t want = b.want;
    const double bytes = b.bytes, base = b.ms;
    lab_row *r;

    const cudaAccessPolicyWindow w1 = win(D.P, wb, 1.f), w0 = win(D.P, wb, 0.f);
    r = add(X, "<<< >>>, stream attribute: hitRatio 1");
    CUPAT_TRY(fresh(X));
    CK(stream_window(X.s, w1));
    cudaAccessPolicyWindow got = win(nullptr, 0, 0.f, cudaAccessPropertyNormal, cudaAccessPropertyNormal);
    CUPAT_TRY(stream_window_of(X, &got));
    CUPAT_TRY(measure(X, r, want, bytes, [&]() { return launch_mixed(X, D.S, D.P, np, X.sum); }));
    const int same = got.hitRatio == w1.hitRatio && got.hitProp == w1.hitProp && got.missProp == w1.missProp;
    if (!same) r->ok = 0;
    lab_row_note(r, "cudaStreamGetAttribute: hitRatio %.2f, hitProp %d, missProp %d%s; ", got.hitRatio, (int)got.hitProp,
                 (int)got.missProp, same ? " as set" : " NOT as set");
    if (got.base_ptr != w1.base_ptr || got.num_bytes != w1.num_bytes)
        lab_row_note(r, "base / bytes read back as %p / %zu (set %p / %zu: the driver may align them); ", got.base_ptr,
                     got.num_bytes, w1.base_ptr, w1.num_bytes);
    if (r->ms > 0 && base > 0) lab_row_note(r, "%.3fx the no-window time", r->ms / base);

    struct Case {
        const char *name;
        float launch_hit;
        int stream_hit0; // the stream carries a hitRatio 0 window meanwhile
        const char *note;
    };
    static const Case cs[] = {
        {"cudaLaunchKernelEx, launch attribute: hitRatio 1", 1.f, 0, "the stream has no window"},
        {"cudaLaunchKernelEx, launch attribute: hitRatio 0", 0.f, 0, "every window access streaming"},
        {"launch attribute hitRatio 1 over a stream window of 0", 1.f, 1,
         "equal to the hitRatio 1 rows: the launch's window, not the stream's, applied"},
    };
    for (const Case &c : cs) {
        r = add(X, "%s", c.name);
        CUPAT_TRY(fresh(X));
        if (c.stream_hit0) CK(stream_window(X.s, w0));
        const cudaAccessPolicyWindow wl = c.launch_hit > 0 ? w1 : w0;
        CUPAT_TRY(measure(X, r, want, bytes, [&]() { return launch_ex(X, D, np, wl); }));
        // the launch attribute stays with the launch: the stream's window unchanged
        CUPAT_TRY(stream_window_of(X, &got));
        const size_t want_bytes = c.stream_hit0 ? w0.num_bytes : 0;
        const int kept = c.stream_hit0 ? got.num_bytes != 0 && got.hitRatio == 0.f : got.num_bytes == 0;
        if (!kept) r->ok = 0;
        lab_row_note(r, "%s; the stream's window after: %zu bytes, hitRatio %.2f (%s, want %zu bytes); ", c.note,
                     got.num_bytes, got.hitRatio, kept ? "unchanged" : "CHANGED", want_bytes);
        if (r->ms > 0 && base > 0) lab_row_note(r, "%.3fx the no-window time", r->ms / base);
    }
    return CUPAT_SUCCESS;
}

cupat_status exp_launch(Run &X)
{
    Data D;
    cupat_status s = launch_rows(X, D);
    return undo(X, s);
}

// ========================================================== features ====

cupat_status exp_features(Run &X)
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, X.dev));
    lab_row *r = add(X, "device compute capability");
    r->value = X.major * 10 + X.minor;
    lab_row_note(r, "%s: cc %d.%d; an sm_90a image runs on cc 9.0 alone", p.name, X.major, X.minor);

    Bufs B;
    int *arch = nullptr;
    uint32_t *out = nullptr;
    CK(B.alloc((void **)&arch, 2 * sizeof(int)));
    // k_arch: l2.cu, built for the lab's targets (compute_90 PTX + sm_90 cubin)
    r = add(X, "k_arch (l2.cu, the lab's targets): runs");
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k_arch));
    CK(fill(X.s, arch, 0xff, 2 * sizeof(int)));
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, [&]() {
        k_arch<<<1, 32, 0, X.s>>>(arch);
        return cupat__launched(X.ctx, "k_arch");
    }));
    r->ms = median(X.t, X.reps);
    r->value = fa.binaryVersion;
    int h[2];
    CK(copy(X.s, h, arch, sizeof h));
    // __CUDA_ARCH__ is the PTX's target (a cubin built from it, or the
    // driver's JIT of it), and no architecture-specific feature set
    r->ok = h[0] == 10 * fa.ptxVersion && h[1] == 0;
    lab_row_note(r, "binaryVersion %d, ptxVersion %d; the kernel saw __CUDA_ARCH__ %d, __CUDA_ARCH_FEAT_SM90_ALL %s",
                 fa.binaryVersion, fa.ptxVersion, h[0], h[1] == 0 ? "undefined" : h[1] == 1 ? "defined" : "unwritten");

    // k_setmaxnreg: l2_sm90a.cu, sm_90a alone
    r = add(X, "k_setmaxnreg (l2_sm90a.cu, sm_90a only): runs");
    const int cc90 = X.major == 9 && X.minor == 0;
    const cudaError_t e = cupat__lab_l2_sm90a_attributes(&fa);
    if (e != cudaSuccess) {
        cudaGetLastError();
        r->ok = !cc90;
        lab_row_note(r, "cudaFuncGetAttributes: %s: no image for cc %d.%d (%s)", cudaGetErrorName(e), X.major, X.minor,
                     cc90 ? "WRONG: cc 9.0 should load it" : "as expected: sm_90a is cc 9.0 alone");
        return CUPAT_SUCCESS;
    }
    const int blocks = X.ctx->sm_count > 0 ? X.ctx->sm_count : 1; // a block an SM (one fits)
    const size_t n = (size_t)blocks * LAB_L2_SM90A_THREADS;
    CK(B.alloc((void **)&out, n * sizeof(uint32_t)));
    CK(fill(X.s, out, 0xff, n * sizeof(uint32_t)));
    CK(fill(X.s, arch, 0xff, 2 * sizeof(int)));
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, [&]() {
        const cudaError_t le = cupat__lab_l2_sm90a_launch(X.s, blocks, out, arch);
        return le == cudaSuccess ? CUPAT_SUCCESS : cupat__cuda(X.ctx, le, "launch of k_setmaxnreg");
    }));
    r->ms = median(X.t, X.reps);
    r->value = fa.binaryVersion;
    uint32_t *got = (uint32_t *)malloc(n * sizeof(uint32_t));
    if (!got) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab l2: out of host memory");
    cudaError_t ce = copy(X.s, got, out, n * sizeof(uint32_t));
    if (ce == cudaSuccess) ce = copy(X.s, h, arch, sizeof h);
    size_t bad = 0;
    for (size_t g = 0; ce == cudaSuccess && g < n; g++)
        bad += got[g] != lab_l2_word((uint32_t)((g % LAB_L2_SM90A_THREADS) / 128 + 1), g);
    free(got);
    CK(ce);
    r->ok = bad == 0 && h[0] == 900 && h[1] == 1;
    lab_row_note(r, "binaryVersion %d, %d registers a thread at launch (setmaxnreg: 40 / 232 after); %zu of %zu words "
                    "wrong; __CUDA_ARCH__ %d, __CUDA_ARCH_FEAT_SM90_ALL %s",
                 fa.binaryVersion, fa.numRegs, bad, n, h[0], h[1] == 1 ? "defined" : h[1] == 0 ? "undefined" : "unwritten");
    return CUPAT_SUCCESS;
}

} // namespace

extern "C" cupat_status cupat__lab_l2_run(cupat_ctx *ctx, int e, int reps, lab_row *rows, int *nrows)
{
    Run X;
    memset(&X, 0, sizeof X);
    X.ctx = ctx, X.reps = reps, X.rows = rows, X.n = nrows, X.s = ctx->stream;
    X.dev = cupat_get_device(ctx);
    int l2 = 0, maxp = 0, maxw = 0, per_sm = 0;
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&X.major, cudaDevAttrComputeCapabilityMajor, X.dev));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&X.minor, cudaDevAttrComputeCapabilityMinor, X.dev));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, X.dev));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxPersistingL2CacheSize, X.dev));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxAccessPolicyWindowSize, X.dev));
    X.l2 = (size_t)l2, X.maxp = (size_t)maxp, X.maxw = (size_t)maxw;
    if (e != LAB_L2_FEATURES && (X.major < 8 || maxp <= 0 || maxw <= 0)) {
        lab_row *r = lab_row_add(rows, nrows, "not supported");
        lab_row_note(r, "L2 persistence needs cc 8.0 and a persisting L2 (none under MIG); device %d is cc %d.%d, max "
                        "persisting %d B, max window %d B",
                     X.dev, X.major, X.minor, maxp, maxw);
        return CUPAT_SUCCESS;
    }
    // k_mixed and k_read: the same shape, a full wave of the smaller
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_mixed, BLOCK, 0));
    int per_sm_read = 0;
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_read, k_read, BLOCK, 0));
    per_sm = per_sm_read < per_sm ? per_sm_read : per_sm;
    X.grid = (per_sm > 0 ? per_sm : 1) * (ctx->sm_count > 0 ? ctx->sm_count : 1);
    X.t = (float *)calloc((size_t)reps, sizeof(float));
    if (!X.t) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab l2: out of host memory");
    Bufs keep;
    cupat_status s = cupat__cuda(ctx, keep.alloc((void **)&X.sum, 2 * sizeof(unsigned long long)), "cudaMalloc");
    if (!s && e != LAB_L2_FEATURES && e != LAB_L2_SETASIDE) {
        s = begin(X);
        if (!s && X.setaside < ((size_t)1 << 20)) { // too little to measure (or MIG: none)
            lab_row *r = lab_row_add(rows, nrows, "not supported");
            lab_row_note(r, "asked a set-aside of %zu B, granted %zu B", lab_l2_guide_setaside(X.l2, X.maxp),
                         X.setaside);
            s = undo(X, s);
            free(X.t);
            return s;
        }
        if (s) s = undo(X, s);
    }
    if (!s) switch (e) {
        case LAB_L2_SETASIDE: s = exp_setaside(X); break;
        case LAB_L2_HITRATIO: s = exp_hitratio(X); break;
        case LAB_L2_WINDOW: s = exp_window(X); break;
        case LAB_L2_RESET: s = exp_reset(X); break;
        case LAB_L2_LAUNCH: s = exp_launch(X); break;
        case LAB_L2_FEATURES: s = exp_features(X); break;
        }
    free(X.t);
    return s;
}
