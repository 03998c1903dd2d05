// SPDX-License-Identifier: Apache-2.0
// memory_shared.cu — the memory lab's on-chip rows that came with issue 16:
// several typed arrays carved from one extern __shared__ buffer (and the
// misaligned carve caught before any access), the shared capacity each
// carveout selects (seen through how many blocks an SM holds), shared
// against global latency, and latency across the cache sizes. The two chase
// experiments reuse lab/exec's pointer chase.
#include "memory/memory_run.cuh"

#include "exec/exec.h"
#include "lab_sreg.cuh"

#include <stdlib.h>
#include <string.h>

namespace {

using namespace cupat_memlab;

// ---- carve --------------------------------------------------------------------------------------

struct Carve {
    unsigned off[LAB_CARVE_NTYPES], count[LAB_CARVE_NTYPES];
};

// The values element i of each array holds: distinct, exact in their type.
__host__ __device__ inline int carve_i(unsigned i)
{
    return 3 * (int)i - 7;
}
__host__ __device__ inline float carve_f(unsigned i)
{
    return (float)i * 0.5f + 0.25f;
}
__host__ __device__ inline unsigned char carve_c(unsigned i)
{
    return (unsigned char)(i * 7 + 1);
}
__host__ __device__ inline double carve_d(unsigned i)
{
    return (double)i * 0.125 + 1099511627776.0; // 2^40 + i / 8: exact
}

// One block. The arrays start at L.off[] bytes into the dynamic buffer,
// declared double as lecture 10 does (so the buffer itself is 8-byte
// aligned). Before any access the block checks each start against its
// type's alignment: a misaligned typed access to shared memory raises
// cudaErrorMisalignedAddress, a sticky error that ends the context, so the
// bad layout is reported (status[1]) and never touched. Otherwise each array
// is written, then read back in reverse order by other threads into out
// (ints, floats, chars, doubles one after the other, 8 bytes an element).
__global__ void k_carve(Carve L, unsigned long long *out, unsigned *status)
{
    extern __shared__ double carve_data[];
    unsigned char *raw = (unsigned char *)carve_data;
    const unsigned base = (unsigned)__cvta_generic_to_shared(raw);
    unsigned bad = 0;
    for (int t = 0; t < LAB_CARVE_NTYPES; t++) {
        const unsigned a = t == LAB_CARVE_DOUBLE ? 8 : t == LAB_CARVE_CHAR ? 1 : 4;
        if (L.count[t] && (base + L.off[t]) % a) bad |= 1u << t;
    }
    if (threadIdx.x == 0) status[0] = base, status[1] = bad;
    if (bad) return; // the same for every thread: no access, no barrier left waiting
    int *ia = (int *)(raw + L.off[LAB_CARVE_INT]);
    float *fa = (float *)(raw + L.off[LAB_CARVE_FLOAT]);
    unsigned char *ca = raw + L.off[LAB_CARVE_CHAR];
    double *da = (double *)(raw + L.off[LAB_CARVE_DOUBLE]);
    for (unsigned i = threadIdx.x; i < L.count[LAB_CARVE_INT]; i += blockDim.x) ia[i] = carve_i(i);
    for (unsigned i = threadIdx.x; i < L.count[LAB_CARVE_FLOAT]; i += blockDim.x) fa[i] = carve_f(i);
    for (unsigned i = threadIdx.x; i < L.count[LAB_CARVE_CHAR]; i += blockDim.x) ca[i] = carve_c(i);
    for (unsigned i = threadIdx.x; i < L.count[LAB_CARVE_DOUBLE]; i += blockDim.x) da[i] = carve_d(i);
    __syncthreads();
    unsigned long long *o = out;
    for (unsigned i = threadIdx.x, n = L.count[LAB_CARVE_INT]; i < n; i += blockDim.x) o[i] = (unsigned)ia[n - 1 - i];
    o += L.count[LAB_CARVE_INT];
    for (unsigned i = threadIdx.x, n = L.count[LAB_CARVE_FLOAT]; i < n; i += blockDim.x)
        o[i] = __float_as_uint(fa[n - 1 - i]);
    o += L.count[LAB_CARVE_FLOAT];
    for (unsigned i = threadIdx.x, n = L.count[LAB_CARVE_CHAR]; i < n; i += blockDim.x) o[i] = ca[n - 1 - i];
    o += L.count[LAB_CARVE_CHAR];
    for (unsigned i = threadIdx.x, n = L.count[LAB_CARVE_DOUBLE]; i < n; i += blockDim.x)
        o[i] = (unsigned long long)__double_as_longlong(da[n - 1 - i]);
}

unsigned long long carve_expect(int t, unsigned i)
{
    unsigned long long v = 0;
    if (t == LAB_CARVE_INT) v = (unsigned)carve_i(i);
    if (t == LAB_CARVE_FLOAT) {
        const float f = carve_f(i);
        unsigned u;
        memcpy(&u, &f, 4);
        v = u;
    }
    if (t == LAB_CARVE_CHAR) v = carve_c(i);
    if (t == LAB_CARVE_DOUBLE) {
        const double d = carve_d(i);
        memcpy(&v, &d, 8);
    }
    return v;
}

const char *const type_names[LAB_CARVE_NTYPES] = {"int", "float", "char", "double"};

// Launch one layout; row->ok: the arrays came back intact (aligned layout)
// or the kernel refused exactly the type the host model says is misaligned.
cupat_status carve_row(Run &X, lab_mem_row *r, const size_t count[LAB_CARVE_NTYPES], const int *order, int n, int pad)
{
    size_t off[LAB_CARVE_NTYPES];
    const size_t bytes = lab_memory_carve(count, order, n, pad, off);
    const int bad_type = lab_memory_carve_misaligned(count, off);
    Carve L;
    size_t total = 0;
    for (int t = 0; t < LAB_CARVE_NTYPES; t++) L.off[t] = (unsigned)off[t], L.count[t] = (unsigned)count[t], total += count[t];
    Bufs b;
    unsigned long long *out = nullptr;
    unsigned *status = nullptr, st[2] = {0, 0};
    CK(b.alloc((void **)&out, total * 8));
    CK(b.alloc((void **)&status, 8));
    CK(fill(X.s, out, 0xFF, total * 8));
    CK(fill(X.s, status, 0xFF, 8));
    k_carve<<<1, 256, bytes, X.s>>>(L, out, status);
    CUPAT_TRY(LAUNCHED("k_carve"));
    CK(copy(X.s, st, status, 8));
    r->value = (double)bytes;
    char offs[96] = "";
    for (int k = 0; k < n; k++)
        snprintf(offs + strlen(offs), sizeof offs - strlen(offs), "%s%s %zu", k ? ", " : "", type_names[order[k]],
                 off[order[k]]);
    if (bad_type >= 0) { // the bug: the device must refuse the same array the host model names
        const unsigned want = 1u << bad_type;
        r->ok = (st[1] & want) != 0;
        snprintf(r->note, sizeof r->note,
                 "%s at byte %zu (%% %zu = %zu): refused before any access (a %zu-byte load there is "
                 "cudaErrorMisalignedAddress, sticky); offsets %s",
                 type_names[bad_type], off[bad_type], lab_memory_carve_size(bad_type),
                 off[bad_type] % lab_memory_carve_size(bad_type), lab_memory_carve_size(bad_type), offs);
        return CUPAT_SUCCESS;
    }
    unsigned long long *host = (unsigned long long *)malloc(total * 8);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    const cudaError_t e = copy(X.s, host, out, total * 8);
    if (e) {
        free(host);
        return cupat__cuda(X.ctx, e, "cudaMemcpyAsync");
    }
    r->ok = st[1] == 0;
    size_t at = 0;
    for (int t = 0; t < LAB_CARVE_NTYPES && r->ok; t++) {
        for (size_t i = 0; i < count[t] && r->ok; i++)
            if (host[at + i] != carve_expect(t, (unsigned)(count[t] - 1 - i))) {
                r->ok = 0;
                snprintf(r->note, sizeof r->note, "%s element %zu read back wrong: arrays overlap or were not written",
                         type_names[t], count[t] - 1 - i);
            }
        at += count[t];
    }
    if (r->ok)
        snprintf(r->note, sizeof r->note, "bytes: %s; all read back (dynamic base at shared address %u)", offs, st[0]);
    free(host);
    return CUPAT_SUCCESS;
}

} // namespace

cupat_status cupat_memlab::exp_carve(Run &X)
{
    // Lecture 10: extern double data[]; float *d1 = (float *)&data[0];
    // double *d2 = (double *)&data[4]; int *d3 = (int *)&data[12]: offsets
    // counted in doubles, so 8 floats, 8 doubles, then the ints.
    {
        const size_t count[LAB_CARVE_NTYPES] = {32, 8, 0, 8};
        const int order[] = {LAB_CARVE_FLOAT, LAB_CARVE_DOUBLE, LAB_CARVE_INT};
        lab_mem_row *r = add(X, "lecture 10: float, double, int in a double[]");
        CUPAT_TRY(carve_row(X, r, count, order, 3, 1));
    }
    const size_t nI = 33, nF = 65, nC = 37, nD = 129;
    // Lecture A: int *integerData = s; float *floatData = (float *)&integerData[nI];
    // char *charData = (char *)&floatData[nF] (the slide writes [nF + nI]: below).
    {
        const size_t count[LAB_CARVE_NTYPES] = {nI, nF, nC, 0};
        const int order[] = {LAB_CARVE_INT, LAB_CARVE_FLOAT, LAB_CARVE_CHAR};
        lab_mem_row *r = add(X, "lecture A: int, float, char");
        CUPAT_TRY(carve_row(X, r, count, order, 3, 0));
    }
    const size_t count[LAB_CARVE_NTYPES] = {nI, nF, nC, nD};
    const int order[] = {LAB_CARVE_INT, LAB_CARVE_FLOAT, LAB_CARVE_CHAR, LAB_CARVE_DOUBLE};
    {
        lab_mem_row *r = add(X, "int, float, char, double: starts rounded up");
        CUPAT_TRY(carve_row(X, r, count, order, 4, 1));
    }
    {
        lab_mem_row *r = add(X, "the same packed: the misaligned double (bug)");
        CUPAT_TRY(carve_row(X, r, count, order, 4, 0));
    }
    // The slide's &floatData[nF + nI] starts the chars nI floats late: with
    // the natural allocation (nI + nF) x 4 + nC bytes they run past its end.
    {
        const size_t need = 4 * nI + 4 * (nF + nI) + nC, natural = 4 * (nI + nF) + nC;
        lab_mem_row *r = add(X, "lecture A as written: &floatData[nF + nI]");
        r->value = (double)need;
        r->ok = need > natural; // the host model finds the overrun
        snprintf(r->note, sizeof r->note,
                 "chars at byte %zu, not %zu: %zu bytes needed, %zu allocated by (nI + nF) x 4 + nC: %zu past the end "
                 "(not launched)",
                 4 * nI + 4 * (nF + nI), 4 * (nI + nF), need, natural, need - natural);
    }
    return CUPAT_SUCCESS;
}

// ---- split: the shared capacity a carveout selects ------------------------------------------------

namespace {

constexpr int SPLIT_BLOCK_BYTES = 8192; // dynamic + the per-block reserve: blocks an SM = capacity / 8 KiB
constexpr int SPLIT_PER_SM = 40;        // blocks launched an SM: more than any capacity holds (28 at 228 KB)
constexpr int SPLIT_MAX_SM = 1024;      // %smid bound for the counters

// Thread 0 counts the blocks live on its SM (the peak is how many fit),
// spins 20 us so that the first wave overlaps, then leaves. The dynamic
// shared memory is never touched: its size alone limits residency.
__global__ void __launch_bounds__(32) k_resident(unsigned *live, unsigned *peak, unsigned *ran, unsigned long long spin_ns)
{
    if (threadIdx.x) return;
    const unsigned sm = cupat_lab::smid() % SPLIT_MAX_SM;
    const unsigned now = atomicAdd(&live[sm], 1u) + 1;
    atomicMax(&peak[sm], now);
    const unsigned long long t0 = cupat_lab::globaltimer();
    while (cupat_lab::globaltimer() - t0 < spin_ns) {
    }
    atomicSub(&live[sm], 1u);
    atomicAdd(ran, 1u);
}

} // namespace

cupat_status cupat_memlab::exp_split(Run &X)
{
    int dev = 0, major = 0, minor = 0, reserved = 0, max_sm = 0; // max_sm: bytes
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    CK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    CK(cudaDeviceGetAttribute(&max_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    const int *caps = nullptr;
    int ncaps = lab_memory_smem_caps(major, minor, &caps);
    if (ncaps && caps[ncaps - 1] * 1024 != max_sm) ncaps = 0; // not the device the table describes: no rule to check
    const size_t dyn = (size_t)(SPLIT_BLOCK_BYTES - reserved);
    static const struct {
        int pct;
        const char *name;
    } prefs[] = {
        {cudaSharedmemCarveoutDefault, "cudaSharedmemCarveoutDefault (-1)"},
        {cudaSharedmemCarveoutMaxL1, "cudaSharedmemCarveoutMaxL1 (0)"},
        {10, "10 %"},
        {25, "25 %"},
        {40, "40 %"},
        {50, "50 %"},
        {75, "75 %"},
        {cudaSharedmemCarveoutMaxShared, "cudaSharedmemCarveoutMaxShared (100)"},
    };
    Bufs b;
    unsigned *live = nullptr, *peak = nullptr, *ran = nullptr;
    CK(b.alloc((void **)&live, SPLIT_MAX_SM * 4));
    CK(b.alloc((void **)&peak, SPLIT_MAX_SM * 4));
    CK(b.alloc((void **)&ran, 4));
    static unsigned hp[SPLIT_MAX_SM];
    const unsigned grid = (unsigned)(SPLIT_PER_SM * X.sms);
    cupat_status s = CUPAT_SUCCESS;
    for (size_t k = 0; k < sizeof prefs / sizeof prefs[0] && !s; k++) {
        const int pct = prefs[k].pct;
        s = cupat__cuda(X.ctx, cudaFuncSetAttribute(k_resident, cudaFuncAttributePreferredSharedMemoryCarveout, pct),
                        "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
        int occ = 0;
        if (!s)
            s = cupat__cuda(X.ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_resident, 32, dyn),
                            "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        if (!s) s = cupat__cuda(X.ctx, fill(X.s, live, 0, SPLIT_MAX_SM * 4), "cudaMemsetAsync");
        if (!s) s = cupat__cuda(X.ctx, fill(X.s, peak, 0, SPLIT_MAX_SM * 4), "cudaMemsetAsync");
        if (!s) s = cupat__cuda(X.ctx, fill(X.s, ran, 0, 4), "cudaMemsetAsync");
        if (!s) {
            k_resident<<<grid, 32, dyn, X.s>>>(live, peak, ran, 20000ull);
            s = LAUNCHED("k_resident");
        }
        unsigned got_ran = 0;
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, hp, peak, sizeof hp), "cudaMemcpyAsync");
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, &got_ran, ran, 4), "cudaMemcpyAsync");
        if (s) break;
        unsigned most = 0, least = ~0u;
        for (int i = 0; i < SPLIT_MAX_SM; i++)
            if (hp[i]) most = hp[i] > most ? hp[i] : most, least = hp[i] < least ? hp[i] : least;
        lab_mem_row *r = add(X, "%s", prefs[k].name);
        r->value = (double)most * SPLIT_BLOCK_BYTES / 1024; // KB the blocks hold: capacity >= this
        // The rule (PCCP 5.1, Guide): pct % of the largest capacity, rounded up to a supported one.
        const int model_kb = pct >= 0 && ncaps ? lab_memory_carveout_kb(pct, caps, ncaps, SPLIT_BLOCK_BYTES / 1024) : -1;
        const unsigned model_blocks = model_kb > 0 ? (unsigned)(model_kb * 1024 / SPLIT_BLOCK_BYTES) : 0;
        const bool checked = pct >= 10 && model_kb > 0; // 0 % cannot hold a block: the driver picks, as it may
        // The carveout is a hint (Guide): the driver may configure more
        // shared memory than the rule asks, never less (H100, 40 %: 132 KB
        // where the rule gives 100 and the occupancy API says 12 blocks).
        r->ok = got_ran == grid && (!checked || most >= model_blocks);
        snprintf(r->note, sizeof r->note, "%u blocks of 8 KiB an SM (%u..%u over SMs): %u..%u KB; occupancy API %d",
                 most, least == ~0u ? 0 : least, most, most * 8, most * 8 + 7, occ);
        if (model_kb > 0)
            note(r, "; rule: %d %% of %d KB = %.1f -> %d KB -> %u blocks%s", pct, caps[ncaps - 1],
                 pct * caps[ncaps - 1] / 100.0, model_kb, model_blocks, checked ? "" : " (not checked: 0 % holds none)");
        if (checked && most > model_blocks) note(r, "; the driver chose more than the rule (a hint)");
        if ((int)most != occ) note(r, "; the occupancy API differs from what ran");
        if (got_ran != grid) note(r, "; only %u of %u blocks ran", got_ran, grid);
    }
    if (!s)
        s = cupat__cuda(X.ctx,
                        cudaFuncSetAttribute(k_resident, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             cudaSharedmemCarveoutDefault),
                        "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
    return s;
}

// ---- latency: shared against global (lecture 10) ------------------------------------------------

cupat_status cupat_memlab::exp_latency(Run &X)
{
    static const struct {
        int where;
        size_t bytes;
        int steps;
        const char *name;
    } rows[] = {
        {LAB_LAT_SHARED, 16 << 10, 16384, "shared memory, 16 KiB"},
        {LAB_LAT_L1, 16 << 10, 16384, "global, 16 KiB, warmed: L1 hits"},
        {LAB_LAT_L2, 4 << 20, 8192, "global, 4 MiB, ld.cg: L2 hits"},
        {LAB_LAT_DRAM, (size_t)1 << 30, 4096, "global, 1 GiB, cold: DRAM"},
    };
    double shared = 0, dram = 0;
    for (const auto &w : rows) {
        lab_exec_latency l;
        CUPAT_TRY(lab_exec_chase(X.ctx, w.where, w.bytes, w.steps, &l));
        lab_mem_row *r = add(X, "%s", w.name);
        r->value = l.cycles;
        r->ok = l.ok;
        if (w.where == LAB_LAT_SHARED) shared = l.cycles;
        if (w.where == LAB_LAT_DRAM) dram = l.cycles;
        if (!l.ok) snprintf(r->note, sizeof r->note, "%s", l.msg);
        else if (w.where == LAB_LAT_SHARED) snprintf(r->note, sizeof r->note, "%.1f ns a dependent load", l.ns);
        else snprintf(r->note, sizeof r->note, "%.1f ns; %.1fx the shared-memory latency", l.ns, shared > 0 ? l.cycles / shared : 0);
    }
    lab_mem_row *r = add(X, "DRAM / shared");
    r->value = shared > 0 ? dram / shared : 0;
    snprintf(r->note, sizeof r->note, "lecture 10: shared memory ~100x faster than global (two orders of magnitude)");
    return CUPAT_SUCCESS;
}

// ---- cachesize: latency against the working set (PCCP 4.1) -----------------------------------------

cupat_status cupat_memlab::exp_cachesize(Run &X)
{
    static const size_t kib[] = {16, 64, 128, 192, 256, 384, 1 << 10, 4 << 10, 16 << 10, 24 << 10,
                                 32 << 10, 40 << 10, 48 << 10, 64 << 10, 128 << 10};
    int dev = 0, l2 = 0, max_sm = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CK(cudaDeviceGetAttribute(&max_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    // The unified L1 / shared array is the largest shared capacity + 28 KB
    // on 8.0 (164 + 28 = 192) and 9.0 (228 + 28 = 256): all L1 here, the
    // chase kernel uses no shared memory.
    const size_t l1 = (size_t)max_sm + (28 << 10);
    for (size_t k = 0; k < sizeof kib / sizeof kib[0]; k++) {
        const size_t bytes = kib[k] << 10;
        lab_exec_latency l;
        CUPAT_TRY(lab_exec_chase(X.ctx, LAB_LAT_L1, bytes, 8192, &l));
        lab_mem_row *r = kib[k] < 1024 ? add(X, "%zu KiB", kib[k]) : add(X, "%zu MiB", kib[k] >> 10);
        r->value = l.cycles;
        r->ok = l.ok;
        if (!l.ok) snprintf(r->note, sizeof r->note, "%s", l.msg);
        else
            snprintf(r->note, sizeof r->note, "%.1f ns; %s", l.ns,
                     bytes <= l1 ? "fits the L1" : bytes <= (size_t)l2 ? "past the L1, fits the L2" : "past the L2: DRAM");
        if (l.ok && k == 0) note(r, " (L1 %zu KiB with no shared memory in use, L2 %.1f MiB)", l1 >> 10, l2 / 1048576.0);
    }
    return CUPAT_SUCCESS;
}
