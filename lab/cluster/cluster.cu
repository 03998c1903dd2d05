// SPDX-License-Identifier: Apache-2.0
// cluster.cu — the kernels of `cupat lab cluster` and their host halves
// (launches, buffers, timing, checks); the experiment table and the host
// models are in cluster_lab.c. Every experiment takes well under a second
// of GPU time and every row that produces data checks it against the host.
// Device code needs sm_90 (guarded so that other targets still compile); the
// host refuses with one row on a device below cc 9.0 before any launch.
#include "cluster/cluster.h"

#include "exec/exec.h"
#include "internal.h"
#include "lab_sreg.cuh"
#include "lab_timing.cuh"

#include <cooperative_groups.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utility>

namespace cg = cooperative_groups;

namespace {

using cupat_lab::Bufs;
using cupat_lab::copy;
using cupat_lab::fill;
using cupat_lab::median;
using cupat_lab::timed;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SM90 1
#else
#define SM90 0
#endif

struct Run : cupat_lab::RunBase {
    int sms;
    double khz; // SM clock
};

lab_row *add(Run &X, const char *name)
{
    return lab_row_add(X.rows, X.n, "%s", name);
}

// A launch configuration with a cluster dimension (the run-time way, Guide
// 5.2.1): the same object feeds cudaLaunchKernelEx and the occupancy API.
struct Cfg {
    cudaLaunchAttribute a[1];
    cudaLaunchConfig_t c;
    Cfg(cudaStream_t s, dim3 grid, dim3 block, size_t smem, dim3 cdim)
    {
        a[0] = cudaLaunchAttribute{};
        c = cudaLaunchConfig_t{};
        a[0].id = cudaLaunchAttributeClusterDimension;
        a[0].val.clusterDim.x = cdim.x;
        a[0].val.clusterDim.y = cdim.y;
        a[0].val.clusterDim.z = cdim.z;
        c.gridDim = grid;
        c.blockDim = block;
        c.dynamicSmemBytes = smem;
        c.stream = s;
        c.attrs = a;
        c.numAttrs = 1;
    }
    Cfg(const Cfg &) = delete;
};

// A launch that may be refused: the error (cleared, so that the next call
// does not see it); a refused launch is what some rows expect.
cudaError_t refusable(cudaError_t e)
{
    if (e != cudaSuccess) cudaGetLastError();
    return e;
}

// ============================================================ views =====
// What each block sees of its cluster: the group API, the PTX special
// registers, and the cluster's count after the barrier (every block adds 1
// before it: a block that passed early would see less).
struct View {
    unsigned rank, blocks, threads, trank0;
    unsigned idx[3], dim[3], dimt[3];
    unsigned hw_rank, hw_n, hw_cid[3];
    unsigned synced;
};

template <bool SPLIT> __device__ void record(View *out, unsigned *count)
{
#if SM90
    cg::cluster_group cl = cg::this_cluster();
    const dim3 d = cl.dim_blocks();
    const unsigned c =
        blockIdx.x / d.x + gridDim.x / d.x * (blockIdx.y / d.y + gridDim.y / d.y * (blockIdx.z / d.z));
    const bool first = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
    if (first) atomicAdd(count + c, 1u);
    if (SPLIT) { // Guide 11.6.1: sync() = barrier_wait(barrier_arrive())
        auto token = cl.barrier_arrive();
        cl.barrier_wait(std::move(token));
    } else {
        cl.sync();
    }
    const unsigned trank = cl.thread_rank();
    if (first) {
        View v;
        v.rank = cl.block_rank();
        v.blocks = cl.num_blocks();
        v.threads = cl.num_threads();
        v.trank0 = trank;
        const dim3 bi = cl.block_index(), dt = cl.dim_threads();
        v.idx[0] = bi.x, v.idx[1] = bi.y, v.idx[2] = bi.z;
        v.dim[0] = d.x, v.dim[1] = d.y, v.dim[2] = d.z;
        v.dimt[0] = dt.x, v.dimt[1] = dt.y, v.dimt[2] = dt.z;
        v.hw_rank = cupat_lab::cluster_ctarank();
        v.hw_n = cupat_lab::cluster_nctarank();
        v.hw_cid[0] = cupat_lab::clusterid_x(), v.hw_cid[1] = cupat_lab::clusterid_y();
        v.hw_cid[2] = cupat_lab::clusterid_z();
        v.synced = atomicAdd(count + c, 0u);
        out[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = v;
    }
#endif
}

// G01: the cluster size fixed at compile time, launched with <<< >>>.
__global__ void __cluster_dims__(2, 1, 1) k_view_fixed(View *out, unsigned *count)
{
    record<false>(out, count);
}
// G02 / G03: the size chosen at launch. TAG 1 carries the non-portable opt-in.
template <int TAG, bool SPLIT> __global__ void k_view(View *out, unsigned *count)
{
    record<SPLIT>(out, count);
}

// Blocks whose view differs from lab_cluster_expect's; the first one named.
int check_views(const View *v, dim3 g, dim3 b, dim3 cd, char *why, size_t len)
{
    const unsigned grid[3] = {g.x, g.y, g.z}, cdim[3] = {cd.x, cd.y, cd.z}, bd[3] = {b.x, b.y, b.z};
    const unsigned bt = b.x * b.y * b.z;
    int bad = 0;
    for (unsigned z = 0; z < g.z; z++)
        for (unsigned y = 0; y < g.y; y++)
            for (unsigned x = 0; x < g.x; x++) {
                const unsigned blk[3] = {x, y, z};
                lab_clu_view e;
                if (lab_cluster_expect(grid, cdim, blk, &e)) return -1;
                const View &w = v[x + g.x * (y + g.y * z)];
                int ok = w.rank == e.rank && w.blocks == e.blocks && w.threads == e.blocks * bt &&
                         w.trank0 == e.rank * bt && w.hw_rank == e.rank && w.hw_n == e.blocks && w.synced == e.blocks;
                for (int d = 0; d < 3; d++)
                    ok = ok && w.idx[d] == e.index[d] && w.dim[d] == cdim[d] && w.dimt[d] == cdim[d] * bd[d] &&
                         w.hw_cid[d] == e.cluster[d];
                if (!ok && !bad++)
                    snprintf(why, len,
                             "block (%u,%u,%u): rank %u (%u), blocks %u (%u), threads %u, index (%u,%u,%u), "
                             "%%clusterid (%u,%u,%u), synced %u; ",
                             x, y, z, w.rank, e.rank, w.blocks, e.blocks, w.threads, w.idx[0], w.idx[1], w.idx[2],
                             w.hw_cid[0], w.hw_cid[1], w.hw_cid[2], w.synced);
            }
    return bad;
}

// Run one view launch (launch() returns its cudaError_t) and check it into
// row r. A refused launch: *refused set, the row left to the caller.
template <class L>
cupat_status views(Run &X, lab_row *r, dim3 g, dim3 b, dim3 cd, cudaError_t *refused, L launch)
{
    const size_t nb = (size_t)g.x * g.y * g.z, nc = nb / ((size_t)cd.x * cd.y * cd.z);
    Bufs B;
    View *dv = nullptr;
    unsigned *dc = nullptr;
    CK(B.alloc((void **)&dv, nb * sizeof(View)));
    CK(B.alloc((void **)&dc, nc * sizeof(unsigned)));
    CK(fill(X.s, dv, 0xff, nb * sizeof(View))); // poison: an unwritten block fails
    CK(fill(X.s, dc, 0, nc * sizeof(unsigned)));
    *refused = refusable(launch(dv, dc));
    if (*refused != cudaSuccess) return CUPAT_SUCCESS;
    CK(cudaStreamSynchronize(X.s));
    View *hv = (View *)malloc(nb * sizeof(View));
    if (!hv) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab cluster: out of host memory");
    cudaError_t e = copy(X.s, hv, dv, nb * sizeof(View));
    char why[160] = "";
    const int bad = e ? 0 : check_views(hv, g, b, cd, why, sizeof why);
    free(hv);
    CK(e);
    r->value = (double)nb;
    r->ok = bad == 0;
    if (bad) lab_row_note(r, "%d of %zu blocks wrong: %s", bad, nb, why);
    else lab_row_note(r, "%zu blocks in %zu clusters of %u: every view as expected; ", nb, nc, cd.x * cd.y * cd.z);
    return CUPAT_SUCCESS;
}

// A row whose launch must be refused.
void expect_refused(lab_row *r, cudaError_t e, const char *what)
{
    r->ok = e != cudaSuccess;
    if (e != cudaSuccess) lab_row_note(r, "refused as expected: %s (%s)", cudaGetErrorName(e), what);
    else lab_row_note(r, "LAUNCHED, though %s", what);
}

cupat_status exp_launch(Run &X)
{
    const dim3 b(64);
    cudaError_t e;
    lab_row *r = add(X, "__cluster_dims__(2,1,1), <<<16, 64>>>");
    CUPAT_TRY(views(X, r, dim3(16), b, dim3(2), &e, [&](View *v, unsigned *c) {
        k_view_fixed<<<16, b, 0, X.s>>>(v, c);
        return cudaGetLastError();
    }));
    if (e) r->ok = 0, lab_row_note(r, "launch failed: %s", cudaGetErrorName(e));
    lab_row_note(r, "G01: the size is part of the kernel");
    r = add(X, "no cluster attribute: an implicit cluster of 1");
    CUPAT_TRY(views(X, r, dim3(16), b, dim3(1), &e, [&](View *v, unsigned *c) {
        k_view<0, false><<<16, b, 0, X.s>>>(v, c);
        return cudaGetLastError();
    }));
    if (e) r->ok = 0, lab_row_note(r, "launch failed: %s", cudaGetErrorName(e));
    static const unsigned sizes[] = {1, 2, 4, 8};
    for (unsigned cs : sizes) {
        char name[72];
        snprintf(name, sizeof name, "cudaLaunchKernelEx, cluster %u, grid 32", cs);
        r = add(X, name);
        CUPAT_TRY(views(X, r, dim3(32), b, dim3(cs), &e, [&](View *v, unsigned *c) {
            Cfg f(X.s, dim3(32), b, 0, dim3(cs));
            return cudaLaunchKernelEx(&f.c, k_view<0, false>, v, c);
        }));
        if (e) r->ok = 0, lab_row_note(r, "launch failed: %s", cudaGetErrorName(e));
    }
    r = add(X, "__cluster_dims__(2,1,1), <<<15, 64>>>");
    if (lab_row_refusal(r)) {
        CUPAT_TRY(views(X, r, dim3(15), b, dim3(1), &e, [&](View *v, unsigned *c) {
            k_view_fixed<<<15, b, 0, X.s>>>(v, c);
            return cudaGetLastError();
        }));
        expect_refused(r, e, "15 blocks are not a whole number of clusters of 2");
    }
    r = add(X, "cudaLaunchKernelEx, cluster 4, grid 30");
    if (lab_row_refusal(r)) {
        CUPAT_TRY(views(X, r, dim3(30), b, dim3(1), &e, [&](View *v, unsigned *c) {
            Cfg f(X.s, dim3(30), b, 0, dim3(4));
            return cudaLaunchKernelEx(&f.c, k_view<0, false>, v, c);
        }));
        expect_refused(r, e, "30 blocks are not a whole number of clusters of 4");
    }
    return CUPAT_SUCCESS;
}

cupat_status exp_api(Run &X)
{
    struct Case {
        const char *name;
        dim3 g, b, cd;
        bool split;
    };
    const Case cases[] = {
        {"1D: grid 64, clusters of 4, sync()", dim3(64), dim3(128), dim3(4), false},
        {"1D: grid 64, clusters of 4, barrier_arrive / barrier_wait", dim3(64), dim3(128), dim3(4), true},
        {"2D: grid (8,4), clusters (2,2), blocks (16,4)", dim3(8, 4), dim3(16, 4), dim3(2, 2), false},
        {"3D: grid (4,4,2), clusters (2,1,2), blocks (8,8,2)", dim3(4, 4, 2), dim3(8, 8, 2), dim3(2, 1, 2), false},
    };
    for (const Case &k : cases) {
        lab_row *r = add(X, k.name);
        cudaError_t e;
        CUPAT_TRY(views(X, r, k.g, k.b, k.cd, &e, [&](View *v, unsigned *c) {
            Cfg f(X.s, k.g, k.b, 0, k.cd);
            return k.split ? cudaLaunchKernelEx(&f.c, k_view<0, true>, v, c)
                           : cudaLaunchKernelEx(&f.c, k_view<0, false>, v, c);
        }));
        if (e) r->ok = 0, lab_row_note(r, "launch failed: %s", cudaGetErrorName(e));
        lab_row_note(r, "rank, index, dims, thread rank, %%cluster_ctarank, %%clusterid, count after the barrier");
    }
    return CUPAT_SUCCESS;
}

cupat_status exp_sizes(Run &X)
{
    const dim3 b(128);
    CK(cudaFuncSetAttribute(k_view<1, false>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaError_t e;
    lab_row *r = add(X, "cluster of 8 (the largest portable)");
    CUPAT_TRY(views(X, r, dim3(64), b, dim3(8), &e, [&](View *v, unsigned *c) {
        Cfg f(X.s, dim3(64), b, 0, dim3(8));
        return cudaLaunchKernelEx(&f.c, k_view<0, false>, v, c);
    }));
    if (e) r->ok = 0, lab_row_note(r, "launch failed: %s", cudaGetErrorName(e));
    r = add(X, "cluster of 16, no opt-in");
    if (lab_row_refusal(r)) {
        CUPAT_TRY(views(X, r, dim3(64), b, dim3(1), &e, [&](View *v, unsigned *c) {
            Cfg f(X.s, dim3(64), b, 0, dim3(16));
            return cudaLaunchKernelEx(&f.c, k_view<0, false>, v, c);
        }));
        expect_refused(r, e, "16 > 8 needs cudaFuncAttributeNonPortableClusterSizeAllowed");
    }
    r = add(X, "cluster of 16, NonPortableClusterSizeAllowed");
    CUPAT_TRY(views(X, r, dim3(64), b, dim3(16), &e, [&](View *v, unsigned *c) {
        Cfg f(X.s, dim3(64), b, 0, dim3(16));
        return cudaLaunchKernelEx(&f.c, k_view<1, false>, v, c);
    }));
    if (e) r->ok = 0, lab_row_note(r, "launch failed: %s", cudaGetErrorName(e));
    r = add(X, "cluster of 32, NonPortableClusterSizeAllowed");
    if (lab_row_refusal(r)) {
        CUPAT_TRY(views(X, r, dim3(64), b, dim3(1), &e, [&](View *v, unsigned *c) {
            Cfg f(X.s, dim3(64), b, 0, dim3(32));
            return cudaLaunchKernelEx(&f.c, k_view<1, false>, v, c);
        }));
        expect_refused(r, e, "beyond the hardware's largest cluster");
    }
    // cudaOccupancyMaxPotentialClusterSize: the largest size that fits for
    // this configuration (the cluster attribute in the configuration is not
    // needed for the query).
    for (int np = 0; np <= 1; np++) {
        r = add(X, np ? "MaxPotentialClusterSize, opt-in" : "MaxPotentialClusterSize, portable");
        Cfg f(X.s, dim3(64), b, 0, dim3(1));
        f.c.numAttrs = 0;
        int cs = 0;
        const cudaError_t q = refusable(np ? cudaOccupancyMaxPotentialClusterSize(&cs, k_view<1, false>, &f.c)
                                           : cudaOccupancyMaxPotentialClusterSize(&cs, k_view<0, false>, &f.c));
        r->value = cs;
        if (q) {
            r->ok = 0;
            lab_row_note(r, "query failed: %s", cudaGetErrorName(q));
            continue;
        }
        r->ok = np ? cs >= 8 : cs >= 1 && cs <= 8;
        lab_row_note(r, np ? "Guide: up to 16 on cc 9.0 with the opt-in" : "Guide 5.2.1: 8 is the portable limit");
    }
    int launch = 0;
    CK(cudaDeviceGetAttribute(&launch, cudaDevAttrClusterLaunch, cupat_get_device(X.ctx)));
    r = add(X, "cudaDevAttrClusterLaunch");
    r->value = launch;
    r->ok = launch == 1;
    return CUPAT_SUCCESS;
}

// ======================================================== occupancy =====
// Each block stamps when it starts and ends (it spins `ns` of %globaltimer),
// which SM ran it, and its rank. Clusters are scheduled whole, so the most
// cluster intervals open at once is the number of clusters co-resident.
struct Stamp {
    unsigned long long t0, t1;
    unsigned sm, rank;
};

template <int TAG> __global__ void k_spin(Stamp *out, unsigned long long ns)
{
#if SM90
    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x == 0) {
        const unsigned long long t0 = cupat_lab::globaltimer();
        while (cupat_lab::globaltimer() - t0 < ns) {
        }
        Stamp s;
        s.t0 = t0;
        s.t1 = cupat_lab::globaltimer();
        s.sm = cupat_lab::smid();
        s.rank = cl.block_rank();
        out[blockIdx.x] = s;
    }
#endif
}

cupat_status occupancy_row(Run &X, unsigned cs, unsigned threads, size_t smem, const char *what)
{
    char name[72];
    snprintf(name, sizeof name, "cluster %2u, %s", cs, what);
    lab_row *r = add(X, name);
    Cfg f(X.s, dim3(cs * 64), dim3(threads), smem, dim3(cs));
    int nc = 0;
    const cudaError_t q = refusable(cudaOccupancyMaxActiveClusters(&nc, k_spin<0>, &f.c));
    if (q) {
        r->ok = 0;
        lab_row_note(r, "cudaOccupancyMaxActiveClusters: %s", cudaGetErrorName(q));
        return CUPAT_SUCCESS;
    }
    if (nc < 1) {
        lab_row_note(r, "the API says no cluster of %u fits (0)", cs);
        return CUPAT_SUCCESS;
    }
    // Three waves of what the API says fits: enough to fill every place.
    const unsigned nb = 3u * (unsigned)nc * cs;
    const unsigned long long ns = 100000; // 100 us a block
    Bufs B;
    Stamp *ds = nullptr;
    CK(B.alloc((void **)&ds, nb * sizeof(Stamp)));
    CK(fill(X.s, ds, 0, nb * sizeof(Stamp)));
    Cfg g(X.s, dim3(nb), dim3(threads), smem, dim3(cs));
    CK(cudaLaunchKernelEx(&g.c, k_spin<0>, ds, ns));
    CK(cudaStreamSynchronize(X.s));
    Stamp *h = (Stamp *)malloc(nb * sizeof(Stamp));
    uint64_t *t0 = (uint64_t *)malloc(2 * (size_t)nb * sizeof(uint64_t));
    if (!h || !t0) {
        free(h);
        free(t0);
        return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab cluster: out of host memory");
    }
    uint64_t *t1 = t0 + nb;
    const cudaError_t e = copy(X.s, h, ds, nb * sizeof(Stamp));
    int bad = 0, sms = 0;
    unsigned char seen[1024] = {0};
    for (unsigned i = 0; !e && i < nb; i++) {
        bad += !(h[i].t1 >= h[i].t0 + ns && h[i].t0 && h[i].rank == i % cs && h[i].sm < 1024);
        t0[i] = h[i].t0, t1[i] = h[i].t1;
        if (h[i].sm < 1024 && !seen[h[i].sm]) seen[h[i].sm] = 1, sms++;
    }
    const int most = e ? -1 : lab_cluster_coresident(t0, t1, (int)nb, (int)cs);
    free(h);
    free(t0);
    CK(e);
    r->value = most;
    r->ok = bad == 0 && most >= 1;
    lab_row_note(r, "API %d clusters (%d blocks), counted %d (%d blocks), %d SMs used%s", nc, nc * (int)cs, most,
                 most * (int)cs, sms, bad ? "; BAD STAMPS" : "");
    return CUPAT_SUCCESS;
}

cupat_status exp_occupancy(Run &X)
{
    const void *k = (const void *)k_spin<0>;
    // 116 KiB of dynamic shared memory: one block an SM (two need 2 x 117 KiB
    // with the reserve, more than the 228 KiB an SM has), so the clusters a
    // GPC holds show directly.
    const size_t big = (size_t)116 << 10;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big));
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    static const unsigned sizes[] = {1, 2, 4, 8, 16};
    for (unsigned cs : sizes) CUPAT_TRY(occupancy_row(X, cs, 128, big, "1 block an SM (116 KiB)"));
    static const unsigned small[] = {2, 8, 16};
    for (unsigned cs : small) CUPAT_TRY(occupancy_row(X, cs, 256, 0, "256 threads, no smem"));
    return CUPAT_SUCCESS;
}

// ============================================================ dsmem =====
enum { DS_READ, DS_WRITE, DS_ATOMIC };
const char *const ds_names[] = {"read the next block's", "write the next block's", "atomicAdd into every block's"};

template <int M> __global__ void k_dsmem(unsigned *out, unsigned words)
{
#if SM90
    extern __shared__ unsigned sh[];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned r = cl.block_rank(), cs = cl.num_blocks();
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) sh[i] = M == DS_READ ? lab_cluster_word(r, i) : 0;
    cl.sync(); // every block's array set before any other block touches it
    if (M == DS_READ) {
        const unsigned *p = cl.map_shared_rank(sh, (r + 1) % cs);
        for (unsigned i = threadIdx.x; i < words; i += blockDim.x) out[(size_t)blockIdx.x * words + i] = p[i];
    } else if (M == DS_WRITE) {
        unsigned *p = cl.map_shared_rank(sh, (r + 1) % cs);
        for (unsigned i = threadIdx.x; i < words; i += blockDim.x) p[i] = lab_cluster_word(r, i);
    } else {
        for (unsigned k = 0; k < cs; k++) atomicAdd(cl.map_shared_rank(sh, (r + k) % cs) + threadIdx.x % words, r + 1);
    }
    cl.sync(); // no block leaves (its shared memory goes) while others use it
    if (M != DS_READ)
        for (unsigned i = threadIdx.x; i < words; i += blockDim.x) out[(size_t)blockIdx.x * words + i] = sh[i];
#endif
}

cupat_status exp_dsmem(Run &X)
{
    static const unsigned sizes[] = {2, 4, 8};
    for (int m = DS_READ; m <= DS_ATOMIC; m++)
        for (unsigned cs : sizes) {
            const unsigned threads = 256, words = m == DS_ATOMIC ? 64 : 2048, nb = cs * 16;
            char name[72];
            snprintf(name, sizeof name, "cluster %u: %s shared memory", cs, ds_names[m]);
            lab_row *r = add(X, name);
            const size_t n = (size_t)nb * words;
            Bufs B;
            unsigned *d = nullptr;
            CK(B.alloc((void **)&d, n * 4));
            CK(fill(X.s, d, 0xff, n * 4));
            Cfg f(X.s, dim3(nb), dim3(threads), words * 4, dim3(cs));
            auto launch = [&]() {
                const cudaError_t e = m == DS_READ    ? cudaLaunchKernelEx(&f.c, k_dsmem<DS_READ>, d, words)
                                      : m == DS_WRITE ? cudaLaunchKernelEx(&f.c, k_dsmem<DS_WRITE>, d, words)
                                                      : cudaLaunchKernelEx(&f.c, k_dsmem<DS_ATOMIC>, d, words);
                return cupat__cuda(X.ctx, e, "k_dsmem launch");
            };
            CUPAT_TRY(timed(X.ctx, X.reps, X.t, launch));
            r->ms = median(X.t, X.reps);
            unsigned *h = (unsigned *)malloc(n * 4);
            if (!h) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab cluster: out of host memory");
            const cudaError_t e = copy(X.s, h, d, n * 4);
            size_t bad = 0, first = n;
            for (size_t i = 0; !e && i < n; i++) {
                const unsigned b = (unsigned)(i / words), w = (unsigned)(i % words), rk = b % cs;
                const unsigned want = m == DS_READ    ? lab_cluster_word((rk + 1) % cs, w)
                                      : m == DS_WRITE ? lab_cluster_word((rk + cs - 1) % cs, w)
                                                      : threads / words * cs * (cs + 1) / 2;
                if (h[i] != want && !bad++) first = i;
            }
            free(h);
            CK(e);
            r->value = (double)n;
            r->ok = bad == 0;
            if (bad) lab_row_note(r, "%zu of %zu words wrong, first at block %zu word %zu", bad, n, first / words,
                                  first % words);
            else lab_row_note(r, m == DS_ATOMIC ? "every counter = %u x (1 + .. + %u)" : "%u blocks x %u words",
                              m == DS_ATOMIC ? threads / words : nb, m == DS_ATOMIC ? cs : words);
        }
    return CUPAT_SUCCESS;
}

// ========================================================== latency =====
// One thread of rank 0 follows a random single cycle (lab_exec_sattolo)
// through its own shared memory, through its own via the cluster mapping,
// or through rank `target`'s; the other blocks hold their arrays until it
// is done.
enum { LT_LOCAL, LT_SELF, LT_REMOTE };

template <int W, int TAG>
__global__ void k_chase(const unsigned *next, unsigned n, int steps, unsigned target, unsigned long long *res)
{
#if SM90
    extern __shared__ unsigned sh[];
    cg::cluster_group cl = cg::this_cluster();
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) sh[i] = next[i];
    cl.sync();
    if (cl.block_rank() == 0 && threadIdx.x == 0) {
        const unsigned *p = W == LT_LOCAL ? sh : cl.map_shared_rank(sh, W == LT_SELF ? 0u : target);
        unsigned j = 0;
        for (unsigned k = 0; k < n; k++) j = p[j]; // warm: one whole cycle, back at 0
        const long long c0 = clock64();
        for (int k = 0; k < steps; k++) j = p[j];
        const long long c1 = clock64();
        res[0] = j;
        res[1] = (unsigned long long)(c1 - c0);
    }
    cl.sync();
#endif
}

cupat_status exp_latency(Run &X)
{
    const unsigned n = 4096; // 16 KiB
    const int steps = 8192;
    uint32_t *next = (uint32_t *)malloc(n * sizeof *next);
    if (!next) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab cluster: out of host memory");
    lab_exec_sattolo(next, n, 0xC1u);
    uint32_t want = 0;
    for (int k = 0; k < steps; k++) want = next[want];
    Bufs B;
    unsigned *dn = nullptr;
    unsigned long long *dr = nullptr;
    cudaError_t e = B.alloc((void **)&dn, n * 4);
    if (!e) e = B.alloc((void **)&dr, 2 * sizeof(unsigned long long));
    if (!e) e = copy(X.s, dn, next, n * 4);
    free(next);
    CK(e);
    CK(cudaFuncSetAttribute(k_chase<LT_REMOTE, 1>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    struct Case {
        const char *name;
        int w;
        unsigned cs, target;
    };
    const Case cases[] = {
        {"local shared (ld.shared)", LT_LOCAL, 1, 0},
        {"own shared through map_shared_rank", LT_SELF, 2, 0},
        {"remote shared: rank 1 of a cluster of 2", LT_REMOTE, 2, 1},
        {"remote shared: rank 7 of a cluster of 8", LT_REMOTE, 8, 7},
        {"remote shared: rank 15 of a cluster of 16", LT_REMOTE, 16, 15},
    };
    double local = 0;
    for (const Case &k : cases) {
        lab_row *r = add(X, k.name);
        CK(fill(X.s, dr, 0xff, 2 * sizeof(unsigned long long)));
        Cfg f(X.s, dim3(k.cs), dim3(128), n * 4, dim3(k.cs));
        const cudaError_t l =
            refusable(k.w == LT_LOCAL  ? cudaLaunchKernelEx(&f.c, k_chase<LT_LOCAL, 0>, dn, n, steps, k.target, dr)
                      : k.w == LT_SELF ? cudaLaunchKernelEx(&f.c, k_chase<LT_SELF, 0>, dn, n, steps, k.target, dr)
                      : k.cs > 8 ? cudaLaunchKernelEx(&f.c, k_chase<LT_REMOTE, 1>, dn, n, steps, k.target, dr)
                                 : cudaLaunchKernelEx(&f.c, k_chase<LT_REMOTE, 0>, dn, n, steps, k.target, dr));
        if (l) {
            r->ok = 0;
            lab_row_note(r, "launch failed: %s", cudaGetErrorName(l));
            continue;
        }
        unsigned long long h[2];
        CK(copy(X.s, h, dr, sizeof h));
        r->value = (double)h[1] / steps;
        r->ok = h[0] == want;
        if (k.w == LT_LOCAL) local = r->value;
        lab_row_note(r, "%d dependent loads over 16 KiB; ", steps);
        if (X.khz > 0) lab_row_note(r, "%.1f ns; ", r->value / X.khz * 1e6);
        if (local > 0 && k.w != LT_LOCAL) lab_row_note(r, "%.1fx local; ", r->value / local);
        if (!r->ok) lab_row_note(r, "ended at %llu, host %u", h[0], want);
    }
    // The L2 row is lab exec's chase (ld.global.cg, one link a 128-byte line).
    lab_row *r = add(X, "L2 (lab exec's chase, ld.global.cg, 4 MiB)");
    lab_exec_latency L;
    CUPAT_TRY(lab_exec_chase(X.ctx, LAB_LAT_L2, (size_t)4 << 20, steps, &L));
    r->value = L.cycles;
    r->ok = L.ok;
    lab_row_note(r, "%.1f ns; %.1fx local; %s", L.ns, local > 0 ? L.cycles / local : 0.0, L.msg);
    return CUPAT_SUCCESS;
}

// ======================================================== bandwidth =====
// Every block fills 64 KiB of shared memory, then reads `passes` times,
// 16 bytes a load, its own array, its neighbour's (rank + 1), or a 64 KiB
// slice of global memory through the L2 (ld.global.cg, warmed by the
// untimed launch). Each pass starts 32 loads further round the array, so no
// load repeats the previous pass's address (nothing for the compiler to
// hoist) and a warp's loads stay consecutive.
enum { BW_LOCAL, BW_REMOTE, BW_L2 };
constexpr unsigned BW_MAX_BLOCKS = 4096; // block sums the bandwidth rows check
constexpr unsigned BW_THREADS = 512, BW_W4 = 4096; // 4096 x 16 B = 64 KiB

template <int W, int TAG>
__global__ void __launch_bounds__(BW_THREADS) k_bw(const uint4 *g, int passes, unsigned *out)
{
#if SM90
    extern __shared__ uint4 sh4[];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned r = cl.block_rank(), cs = cl.num_blocks();
    unsigned *sh = reinterpret_cast<unsigned *>(sh4);
    for (unsigned i = threadIdx.x; i < 4 * BW_W4; i += BW_THREADS) sh[i] = lab_cluster_word(r, i);
    cl.sync();
    const uint4 *src = W == BW_LOCAL ? sh4 : W == BW_REMOTE ? cl.map_shared_rank(sh4, (r + 1) % cs)
                                                            : g + (size_t)blockIdx.x * BW_W4;
    unsigned s = 0;
    for (int p = 0; p < passes; p++) {
#pragma unroll
        for (unsigned k = threadIdx.x; k < BW_W4; k += BW_THREADS) {
            const unsigned i = (k + 32u * (unsigned)p) & (BW_W4 - 1);
            const uint4 v = W == BW_L2 ? __ldcg(src + i) : src[i];
            s += v.x + v.y + v.z + v.w;
        }
    }
    s = __reduce_add_sync(0xffffffffu, s);
    if ((threadIdx.x & 31) == 0) atomicAdd(out + blockIdx.x, s);
    cl.sync();
#endif
}

template <int W, int TAG> cupat_status bw_row(Run &X, unsigned cs, const char *name, const uint4 *g, unsigned *d)
{
    lab_row *r = add(X, name);
    auto k = k_bw<W, TAG>;
    const size_t smem = BW_W4 * 16;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (cs > 8) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    int nc = 0;
    {
        Cfg f(X.s, dim3(cs * 64), dim3(BW_THREADS), smem, dim3(cs));
        CK(cudaOccupancyMaxActiveClusters(&nc, k, &f.c));
    }
    if (nc < 1) {
        lab_row_note(r, "no cluster of %u fits", cs);
        return CUPAT_SUCCESS;
    }
    const unsigned nb = (unsigned)nc * cs; // one resident wave
    if (nb > (unsigned)X.sms * 8) return cupat__fail(X.ctx, CUPAT_ERROR_INTERNAL, "lab cluster: %u blocks", nb);
    const int passes = 64;
    Cfg f(X.s, dim3(nb), dim3(BW_THREADS), smem, dim3(cs));
    // The sums accumulate over the reps + 1 launches (zeroed once, so no
    // memset inside the timed region).
    CK(fill(X.s, d, 0, nb * 4));
    auto launch = [&]() { return cupat__cuda(X.ctx, cudaLaunchKernelEx(&f.c, k, g, passes, d), "k_bw launch"); };
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, launch));
    r->ms = median(X.t, X.reps);
    const double bytes = (double)nb * BW_W4 * 16 * passes;
    r->value = r->ms > 0 ? bytes / (r->ms * 1e-3) * 1e-9 : 0;
    unsigned h[BW_MAX_BLOCKS];
    CK(copy(X.s, h, d, nb * 4));
    unsigned sum[16];
    for (unsigned k2 = 0; k2 < cs; k2++) {
        unsigned s = 0;
        for (unsigned i = 0; i < 4 * BW_W4; i++) s += lab_cluster_word(k2, i);
        sum[k2] = s * (unsigned)passes * (unsigned)(X.reps + 1);
    }
    unsigned bad = 0;
    for (unsigned b = 0; b < nb; b++) bad += h[b] != sum[W == BW_REMOTE ? (b % cs + 1) % cs : b % cs];
    r->ok = bad == 0;
    lab_row_note(r, "%u blocks (%d clusters a wave), %.0f MiB read; ", nb, nc, bytes / (1 << 20));
    if (bad) lab_row_note(r, "%u block sums wrong", bad);
    return CUPAT_SUCCESS;
}

cupat_status exp_bandwidth(Run &X)
{
    // The L2 row's slices: block b holds rank (b % 2)'s words, as its own
    // shared array would; at most 8 blocks an SM (BW_MAX_BLOCKS sums above:
    // 512 SMs; the H100 has 132).
    const size_t nmax = (size_t)X.sms * 8;
    if (nmax > BW_MAX_BLOCKS)
        return cupat__fail(X.ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab cluster: more than %d SMs x 8", BW_MAX_BLOCKS / 8);
    Bufs B;
    uint4 *g = nullptr;
    unsigned *d = nullptr;
    CK(B.alloc((void **)&g, nmax * BW_W4 * 16));
    CK(B.alloc((void **)&d, nmax * 4));
    unsigned *h = (unsigned *)malloc(nmax * BW_W4 * 16);
    if (!h) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab cluster: out of host memory");
    for (size_t b = 0; b < nmax; b++)
        for (unsigned i = 0; i < 4 * BW_W4; i++) h[b * 4 * BW_W4 + i] = lab_cluster_word((unsigned)(b % 2), i);
    const cudaError_t e = copy(X.s, g, h, nmax * BW_W4 * 16);
    free(h);
    CK(e);
    CUPAT_TRY((bw_row<BW_LOCAL, 0>(X, 2, "own shared memory (cluster 2)", g, d)));
    CUPAT_TRY((bw_row<BW_REMOTE, 0>(X, 2, "neighbour's shared memory, cluster 2", g, d)));
    CUPAT_TRY((bw_row<BW_REMOTE, 0>(X, 4, "neighbour's shared memory, cluster 4", g, d)));
    CUPAT_TRY((bw_row<BW_REMOTE, 0>(X, 8, "neighbour's shared memory, cluster 8", g, d)));
    CUPAT_TRY((bw_row<BW_REMOTE, 1>(X, 16, "neighbour's shared memory, cluster 16", g, d)));
    CUPAT_TRY((bw_row<BW_L2, 0>(X, 2, "global through the L2 (ld.cg, 64 KiB a block)", g, d)));
    return CUPAT_SUCCESS;
}

// ======================================================== histogram =====
// The library's own DSMEM user: cupat_histogram_even with 65536 bins of
// 16-bit samples, the rung pinned (cupat_set_variant), checked bin by bin.
cupat_status exp_histogram(Run &X)
{
    const size_t n = (size_t)1 << 26, bins = 65536;
    uint16_t *hx = (uint16_t *)malloc(n * 2);
    unsigned *hc = (unsigned *)calloc(bins, 4), *got = (unsigned *)malloc(bins * 4);
    if (!hx || !hc || !got) {
        free(hx), free(hc), free(got);
        return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab cluster: out of host memory");
    }
    uint64_t z = 0x48495354u;
    for (size_t i = 0; i < n; i++) {
        z += 0x9E3779B97F4A7C15ull; // splitmix64
        uint64_t v = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
        v ^= v >> 31;
        // A skewed mix: a quarter of the samples in 256 hot bins.
        hx[i] = (uint16_t)((v >> 40) & 3 ? v : (v & 255));
        hc[hx[i]]++;
    }
    Bufs B;
    void *dx = nullptr, *dc = nullptr;
    cudaError_t e = B.alloc(&dx, n * 2);
    if (!e) e = B.alloc(&dc, bins * 4);
    if (!e) e = copy(X.s, dx, hx, n * 2);
    free(hx);
    cupat_status s = e ? cupat__cuda(X.ctx, e, "histogram buffers") : CUPAT_SUCCESS;
    static const char *const rungs[] = {"cluster", "packed16", "default"};
    for (int k = 0; k < 3 && !s; k++) {
        char name[72];
        snprintf(name, sizeof name, "cupat_histogram_even u16, 65536 bins: %s", rungs[k]);
        lab_row *r = add(X, name);
        s = cupat_set_variant(X.ctx, "histogram", rungs[k]);
        const cupat_variant_info *vi = nullptr;
        if (!s && !cupat_get_variant(X.ctx, "histogram", &vi) && vi && k == 2) lab_row_note(r, "rung %s; ", vi->name);
        if (!s) s = cupat__cuda(X.ctx, fill(X.s, dc, 0xff, bins * 4), "cudaMemsetAsync"); // poison
        if (!s)
            s = timed(X.ctx, X.reps, X.t, [&]() {
                return cupat_histogram_even(X.ctx, CUPAT_HIST_U16, n, dx, bins, 0, 65536, CUPAT_U32, dc,
                                            CUPAT_HIST_OVERWRITE);
            });
        if (s == CUPAT_ERROR_NOT_SUPPORTED) { // the rung's own limit, not the lab's failure
            lab_row_note(r, "not run: %s", cupat_last_error(X.ctx));
            s = CUPAT_SUCCESS;
            continue;
        }
        if (s) break;
        r->ms = median(X.t, X.reps);
        r->value = r->ms > 0 ? n * 2.0 / (r->ms * 1e-3) * 1e-9 : 0;
        e = copy(X.s, got, dc, bins * 4);
        if (e) {
            s = cupat__cuda(X.ctx, e, "histogram read-back");
            break;
        }
        size_t bad = 0;
        for (size_t b = 0; b < bins; b++) bad += got[b] != hc[b];
        r->ok = bad == 0;
        lab_row_note(r, "2^26 samples, a quarter in 256 hot bins; %zu bins wrong", bad);
    }
    const cupat_status u = cupat_set_variant(X.ctx, "histogram", NULL);
    free(hc), free(got);
    return s ? s : u;
}

} // namespace

extern "C" cupat_status cupat__lab_cluster_run(cupat_ctx *ctx, int e, int reps, lab_row *rows, int *nrows)
{
    Run X = {{ctx, reps, rows, nrows, nullptr, ctx->stream}, ctx->sm_count, 0};
    int major = 0, minor = 0, launch = 0, khz = 0;
    const int dev = cupat_get_device(ctx);
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&launch, cudaDevAttrClusterLaunch, dev));
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) != cudaSuccess) cudaGetLastError();
    X.khz = khz;
    if (major < 9 || !launch) {
        lab_row *r = lab_row_add(rows, nrows, "not supported");
        lab_row_note(r, "thread-block clusters need cc 9.0 and cluster launch; device %d is cc %d.%d%s", dev, major,
                     minor, launch ? "" : " without cluster launch");
        return CUPAT_SUCCESS;
    }
    X.t = (float *)calloc((size_t)reps, sizeof(float));
    if (!X.t) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab cluster: out of host memory");
    cupat_status s = CUPAT_SUCCESS;
    switch (e) {
    case LAB_CLU_LAUNCH: s = exp_launch(X); break;
    case LAB_CLU_API: s = exp_api(X); break;
    case LAB_CLU_SIZES: s = exp_sizes(X); break;
    case LAB_CLU_OCCUPANCY: s = exp_occupancy(X); break;
    case LAB_CLU_DSMEM: s = exp_dsmem(X); break;
    case LAB_CLU_LATENCY: s = exp_latency(X); break;
    case LAB_CLU_BANDWIDTH: s = exp_bandwidth(X); break;
    case LAB_CLU_HISTOGRAM: s = exp_histogram(X); break;
    }
    free(X.t);
    return s;
}
