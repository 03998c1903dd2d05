// SPDX-License-Identifier: Apache-2.0
// histogram_book.cu — the PMPP ch. 9 rungs and every CUDA launch of the
// "histogram" ladder: scratch (range keys, private copies), overwrite,
// launches in chunks of at most LAUNCH_MAX samples (no u32 counter in shared
// memory or a register can reach 2^31 before its flush), each rung's shared
// memory and grid, and the default's choice by bin count.
#include "histogram/histogram_device.cuh"

#include <stdio.h>
#include <string.h>

namespace cupat_histogram {
namespace {

// 9.2-9.3: one thread a sample, atomicAdd in global memory.
template <typename T, bool RANGE> __global__ void __launch_bounds__(BLOCK) k_global_atomic(Params p)
{
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= p.n) return;
    const int b = Binner<T, RANGE>{p, nullptr}(load<T>(p, i), i);
    if (b >= 0) out_add(p, (unsigned)b, 1u);
}

// 9.4 (global memory): block b adds into private copy b mod ncopies; a
// second kernel (k_merge) sums the copies. The copies sit in the L2 beside
// each other, so the same bin of different blocks no longer collides.
template <typename T, bool RANGE> __global__ void __launch_bounds__(BLOCK) k_private_global(Params p)
{
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= p.n) return;
    const int b = Binner<T, RANGE>{p, nullptr}(load<T>(p, i), i);
    if (b >= 0) atomicAdd(p.priv + (size_t)(blockIdx.x % p.ncopies) * p.total + b, 1u);
}

__global__ void __launch_bounds__(BLOCK) k_merge(Params p)
{
    for (unsigned b = blockIdx.x * BLOCK + threadIdx.x; b < p.total; b += gridDim.x * BLOCK) {
        unsigned s = 0;
        for (unsigned c = 0; c < p.ncopies; c++) s += p.priv[(size_t)c * p.total + b];
        if (s) out_add(p, b, s);
    }
}

// 9.4 (shared memory): the block's copy in shared memory, one thread a
// sample; zeroing and flushing `total` counters for 256 samples is the cost
// the next rungs amortize.
template <typename T, bool RANGE> __global__ void __launch_bounds__(BLOCK) k_private_shared(Params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned *h = reinterpret_cast<unsigned *>(smem + p.hist_off);
    zero_shared(h, p.total);
    __syncthreads();
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < p.n) {
        const int b = Binner<T, RANGE>{p, nullptr}(load<T>(p, i), i);
        if (b >= 0) atomicAdd(&h[b], 1u);
    }
    __syncthreads();
    flush_shared(p, h, 1);
}

// 9.5 and 9.6 on a resident grid with the block's copy in shared memory.
// MODE 0: contiguous partitioning (thread t takes samples [t k, t k + k):
// neighbouring lanes read k samples apart: uncoalesced); 1: interleaved
// (grid stride: coalesced); 2: interleaved with aggregation of runs.
template <typename T, bool RANGE, int MODE> __global__ void __launch_bounds__(BLOCK) k_coarse(Params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    stage<T, RANGE>(p, smem);
    unsigned *h = reinterpret_cast<unsigned *>(smem + p.hist_off);
    zero_shared(h, p.total);
    __syncthreads();
    const Binner<T, RANGE> bin{p, smem};
    const unsigned t = blockIdx.x * BLOCK + threadIdx.x, nth = gridDim.x * BLOCK;
    if (MODE == 0) {
        const unsigned k = (p.n + nth - 1) / nth;
        const size_t a = (size_t)t * k, e = a + k < p.n ? a + k : p.n;
        for (size_t i = a; i < e; i++) {
            const int b = bin(load<T>(p, (unsigned)i), (unsigned)i);
            if (b >= 0) atomicAdd(&h[b], 1u);
        }
    } else if (MODE == 1) {
        for (unsigned i = t; i < p.n; i += nth) {
            const int b = bin(load<T>(p, i), i);
            if (b >= 0) atomicAdd(&h[b], 1u);
        }
    } else {
        int prev = -1;
        unsigned acc = 0;
        for (unsigned i = t; i < p.n; i += nth) {
            const int b = bin(load<T>(p, i), i);
            if (b == prev) {
                acc++;
            } else {
                if (prev >= 0) atomicAdd(&h[prev], acc);
                prev = b;
                acc = 1;
            }
        }
        if (prev >= 0) atomicAdd(&h[prev], acc);
    }
    __syncthreads();
    flush_shared(p, h, 1);
}

template <typename T, bool R> const void *kernel_of(int rung)
{
    switch (rung) {
    case HR_GLOBAL_ATOMIC: return (const void *)k_global_atomic<T, R>;
    case HR_PRIVATE_GLOBAL: return (const void *)k_private_global<T, R>;
    case HR_PRIVATE_SHARED: return (const void *)k_private_shared<T, R>;
    case HR_COARSE_CONTIGUOUS: return (const void *)k_coarse<T, R, 0>;
    case HR_COARSE_INTERLEAVED: return (const void *)k_coarse<T, R, 1>;
    case HR_AGGREGATE: return (const void *)k_coarse<T, R, 2>;
    default: return nullptr;
    }
}

const void *book_kernel(int rung, cupat_hist_sample s, int range)
{
    switch (s) {
    case CUPAT_HIST_U8: return range ? kernel_of<uint8_t, true>(rung) : kernel_of<uint8_t, false>(rung);
    case CUPAT_HIST_U16: return range ? kernel_of<uint16_t, true>(rung) : kernel_of<uint16_t, false>(rung);
    case CUPAT_HIST_I32: return range ? kernel_of<int32_t, true>(rung) : kernel_of<int32_t, false>(rung);
    case CUPAT_HIST_F32: return range ? kernel_of<float, true>(rung) : kernel_of<float, false>(rung);
    }
    return nullptr;
}

// ------------------------------------------------------------ policy --
constexpr size_t KEYS_SMEM_MAX = 64 << 10; // range keys staged up to here
constexpr size_t VEC16_COPIES_BUDGET = 24 << 10; // vec16: copies that keep 8 blocks an SM
constexpr size_t CLUSTER_SLICE_MAX = 112 << 10;  // two cluster blocks an SM
constexpr size_t PRIV_GLOBAL_BYTES = (size_t)64 << 20;

size_t optin(const cupat_ctx *ctx)
{
    int dev = ctx->device, v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
        cudaGetLastError();
        v = 48 << 10;
    }
    return (size_t)v;
}

bool persistent(int rung)
{
    return rung != HR_GLOBAL_ATOMIC && rung != HR_PRIVATE_GLOBAL && rung != HR_PRIVATE_SHARED;
}

bool uses_lut(const hist_req *r, int rung)
{
    return r->sample == CUPAT_HIST_U8 && (rung == HR_VEC16 || rung == HR_CLUSTER || rung == HR_PACKED16);
}

bool fast8(const hist_req *r)
{
    return r->sample == CUPAT_HIST_U8 && !r->range && r->channels == 1 && r->ilo == 0 &&
           r->imode == HIST_IMODE_SHIFT && r->irange == 256;
}

} // namespace

// Cluster size for `total` bins: the smallest of 2, 4, 8 whose power-of-two
// slices of at most CLUSTER_SLICE_MAX bytes cover them; 0 if none does.
static int cluster_size(unsigned total, unsigned *sshift)
{
    for (int cs = 2; cs <= 8; cs *= 2) {
        unsigned per = (total + cs - 1) / cs, sh = 0;
        while ((1u << sh) < per) sh++;
        if (((size_t)4 << sh) <= CLUSTER_SLICE_MAX) {
            *sshift = sh;
            return cs;
        }
    }
    return 0;
}

// A rung's shared memory for request r: fills p.copies, p.lut, p.fast8,
// p.keys_smem, p.hist_off, p.sshift and *smem; false (reason in why) when
// the rung cannot take it.
static bool configure(const cupat_ctx *ctx, int rung, const hist_req *r, Params &p, size_t *smem,
                      int *cluster, char *why, size_t len)
{
    const size_t ks = hist_key_size(r->sample), max = optin(ctx), hist = (size_t)r->total * 4;
    p.fast8 = (rung == HR_VEC16 || rung == HR_CLUSTER || rung == HR_PACKED16) && fast8(r);
    p.lut = uses_lut(r, rung) && !p.fast8;
    p.keys_smem = r->range && persistent(rung) && ((size_t)r->bins + 1) * ks <= KEYS_SMEM_MAX;
    p.copies = 1;
    *cluster = 0;
    size_t pro = prologue_bytes(p, r->range, ks);
    if (p.keys_smem && pro + hist > max && rung != HR_CLUSTER && rung != HR_PACKED16) { // the histogram first
        p.keys_smem = 0;
        pro = prologue_bytes(p, r->range, ks);
    }
    p.hist_off = (unsigned)pro;
    switch (rung) {
    case HR_GLOBAL_ATOMIC:
    case HR_PRIVATE_GLOBAL: *smem = 0; return true;
    case HR_PACKED16: {
        const size_t words = ((size_t)r->total + 1) / 2 * 4;
        if (pro + words > max && p.keys_smem) { // the counters first
            p.keys_smem = 0;
            pro = prologue_bytes(p, r->range, ks);
            p.hist_off = (unsigned)pro;
        }
        if (pro + words > max) {
            snprintf(why, len, "%u bins (x 2 bytes) do not fit in one block's %zu KiB of shared memory",
                     r->total, max >> 10);
            return false;
        }
        *smem = pro + words;
        return true;
    }
    case HR_BYTE_COUNTERS:
        p.keys_smem = 0; // counts by byte value; the rule (keys in global memory) at the end
        p.hist_off = 0;
        if (r->sample != CUPAT_HIST_U8) {
            snprintf(why, len, "it counts 8-bit samples only");
            return false;
        }
        if (bytes_smem(r->channels) > max) {
            snprintf(why, len, "%d channel(s) of 8-bit counters need %zu KiB of shared memory, the "
                     "device gives a block %zu KiB", r->channels, bytes_smem(r->channels) >> 10, max >> 10);
            return false;
        }
        *smem = bytes_smem(r->channels);
        return true;
    case HR_CLUSTER: {
        unsigned sh = 0;
        int cs = cluster_size(r->total, &sh);
        if (!cs) {
            snprintf(why, len, "%u bins (x 4 bytes) exceed a cluster of 8 blocks x %zu KiB", r->total,
                     CLUSTER_SLICE_MAX >> 10);
            return false;
        }
        if (pro + ((size_t)4 << sh) > max) {
            p.keys_smem = 0;
            pro = prologue_bytes(p, r->range, ks);
            p.hist_off = (unsigned)pro;
        }
        p.sshift = sh;
        *cluster = cs;
        *smem = pro + ((size_t)4 << sh);
        return true;
    }
    case HR_PER_WARP:
    case HR_VEC16: {
        const size_t budget = rung == HR_VEC16 ? VEC16_COPIES_BUDGET : max;
        int c = NWARP;
        while (c > 1 && pro + (size_t)c * hist > budget) c /= 2;
        if (pro + hist > max) {
            if (rung == HR_VEC16) { // too many bins for a block: straight to the output
                p.copies = 0;
                *smem = pro;
                return true;
            }
            c = 0;
        }
        p.copies = c;
        break;
    }
    default: break;
    }
    if (pro + (size_t)p.copies * hist > max || p.copies == 0) {
        snprintf(why, len, "%u bins (x 4 bytes) do not fit in one block's %zu KiB of shared memory",
                 r->total, max >> 10);
        return false;
    }
    *smem = pro + (size_t)p.copies * hist;
    return true;
}

} // namespace cupat_histogram

using namespace cupat_histogram;

extern "C" int cupat__histogram_fits(const cupat_ctx *ctx, int rung, cupat_hist_sample s, int range,
                                     unsigned total, char *why, size_t len)
{
    hist_req r;
    memset(&r, 0, sizeof r);
    r.sample = s;
    r.range = range;
    r.channels = 1;
    r.bins = r.total = total;
    Params p;
    memset(&p, 0, sizeof p);
    p.channels = 1;
    p.bins = total;
    size_t smem;
    int cs;
    if (why && len) why[0] = '\0';
    if (rung == HR_CPU_SERIAL || rung == HR_CPU_OPENMP) return 1;
    return configure(ctx, rung, &r, p, &smem, &cs, why, len) ? 1 : 0;
}

// A launch configuration with a cluster dimension of `cluster` blocks.
static cudaLaunchConfig_t cluster_config(const cupat_ctx *ctx, cudaLaunchAttribute *attr, int cluster,
                                         int grid, int block, size_t smem)
{
    cudaLaunchConfig_t cfg = {};
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = ctx->stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

static cupat_status launch(cupat_ctx *ctx, const hist_req *r, const void *f, Params &p, int grid,
                           int block, size_t smem, int cluster)
{
    void *args[] = {&p};
    if (!cluster)
        return cupat__cuda(ctx, cudaLaunchKernel(f, dim3(grid), dim3(block), args, smem, ctx->stream),
                           "histogram kernel launch");
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg = cluster_config(ctx, attr, cluster, grid, block, smem);
    return cupat__cuda(ctx, cudaLaunchKernelExC(&cfg, f, args), "histogram cluster kernel launch");
}

// Blocks of the resident grid: what fits on the device at once, no more
// than the work needs (and a multiple of the cluster size).
static cupat_status grid_of(cupat_ctx *ctx, const hist_req *r, const void *f, int block, size_t smem,
                            int cluster, int *grid)
{
    int g = 0;
    if (cluster) {
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t cfg = cluster_config(ctx, attr, cluster, cluster * ctx->sm_count, block, smem);
        int nc = 0;
        CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveClusters(&nc, f, &cfg));
        if (nc < 1)
            return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                               "%s: rung cluster: no cluster of %d blocks with %zu bytes of shared "
                               "memory each fits on this device",
                               r->fn, cluster, smem);
        g = nc * cluster;
    } else {
        int nb = 0;
        CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, f, block, smem));
        g = (nb > 0 ? nb : 1) * ctx->sm_count;
    }
    // Enough work a block: at least 2 x 16 bytes a thread.
    size_t need = (r->n * hist_sample_size(r->sample) + 32 * (size_t)block - 1) / (32 * (size_t)block);
    if (need < (size_t)g) g = (int)(need > 0 ? need : 1);
    if (cluster) g = (g + cluster - 1) / cluster * cluster;
    *grid = g;
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__histogram_cuda(cupat_ctx *ctx, const hist_req *r)
{
    const size_t cbytes = (size_t)r->total * (r->out64 ? 8 : 4);
    if (r->n == 0) {
        if (!r->accumulate) CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(r->counts, 0, cbytes, ctx->stream));
        return CUPAT_SUCCESS;
    }

    int rung = r->rung;
    Params p;
    memset(&p, 0, sizeof p);
    size_t smem = 0;
    int cluster = 0;
    char why[200] = "";
    p.bins = r->bins;
    p.total = r->total;
    p.channels = r->channels;
    bool ok = configure(ctx, rung, r, p, &smem, &cluster, why, sizeof why);
    // The default chooses by sample type and bin count: byte_counters for
    // 8-bit samples of up to 3 channels (any bins: it counts byte values);
    // else vec16 while a block holds the histogram as u32; else packed16
    // while one holds it as 16-bit pairs; else the cluster while one holds
    // it; else vec16 straight to the output (global atomics with runs and
    // warp aggregation). take() switches to a rung that can hold it.
    auto take = [&](int cand) {
        Params q = p;
        size_t qs;
        int qc;
        char w2[200];
        if (!configure(ctx, cand, r, q, &qs, &qc, w2, sizeof w2)) return false;
        rung = cand;
        p = q;
        smem = qs;
        cluster = qc;
        return true;
    };
    const bool chooses = ok && rung == HR_VEC16 && !cupat__pinned(ctx, "histogram");
    if (chooses && r->sample == CUPAT_HIST_U8 && r->channels <= 3) take(HR_BYTE_COUNTERS);
    if (chooses && rung == HR_VEC16 && p.copies == 0 && !take(HR_PACKED16)) take(HR_CLUSTER);
    if (!ok) {
        const cupat_variant_info *v = NULL;
        size_t nv = 0;
        cupat_variants("histogram", &v, &nv);
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "%s: rung %s: %s", r->fn,
                           v && (size_t)rung < nv ? v[rung].name : "?", why);
    }

    if (!r->accumulate) CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(r->counts, 0, cbytes, ctx->stream));
    p.out = r->counts;
    p.out64 = r->out64;
    p.ilo = r->ilo;
    p.irange = r->irange;
    p.imode = r->imode;
    p.ishift = r->ishift;
    p.flo = r->flo;
    p.fhi = r->fhi;
    p.fscale = r->fscale;

    // Scratch: the keys, then the private copies.
    const size_t ks = hist_key_size(r->sample);
    size_t kbytes = r->range ? (((size_t)r->bins + 1) * ks + 255) / 256 * 256 : 0;
    size_t ncopies = 0;
    if (rung == HR_PRIVATE_GLOBAL) {
        ncopies = PRIV_GLOBAL_BYTES / ((size_t)r->total * 4);
        size_t blocks = (r->n < LAUNCH_MAX ? r->n : LAUNCH_MAX) / BLOCK + 1;
        if (ncopies > blocks) ncopies = blocks;
        if (ncopies > (size_t)4 * ctx->sm_count) ncopies = (size_t)4 * ctx->sm_count;
        if (ncopies < 1) ncopies = 1;
    }
    const size_t pbytes = ncopies * r->total * 4;
    if (kbytes + pbytes) {
        void *scratch = NULL;
        CUPAT_TRY(cupat__scratch(ctx, kbytes + pbytes, &scratch));
        if (kbytes) {
            // Pageable source: the call returns once the keys are staged, so
            // the caller may free them.
            CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(scratch, r->keys, ((size_t)r->bins + 1) * ks,
                                                cudaMemcpyHostToDevice, ctx->stream));
            p.keys = scratch;
        }
        if (pbytes) {
            p.priv = reinterpret_cast<unsigned *>(static_cast<char *>(scratch) + kbytes);
            p.ncopies = (unsigned)ncopies;
        }
    }

    const void *f = rung <= HR_AGGREGATE      ? book_kernel(rung, r->sample, r->range)
                    : rung == HR_CLUSTER       ? cluster_kernel(r->sample, r->range, p.fast8)
                    : rung == HR_BYTE_COUNTERS ? bytes_kernel(r->channels)
                    : rung == HR_PACKED16      ? packed_kernel(r->sample, r->range, p.fast8)
                                               : warp_kernel(rung, r->sample, r->range, p.fast8);
    if (!f)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: no kernel for rung %d (a bug in cupat)",
                           r->fn, rung);
    const int block = rung == HR_CLUSTER         ? CLUSTER_BLOCK
                      : rung == HR_BYTE_COUNTERS ? bytes_block(r->channels)
                      : rung == HR_PACKED16      ? PACKED_BLOCK
                                                 : BLOCK;
    if (smem > (48 << 10))
        CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    int rgrid = 0;
    if (persistent(rung)) CUPAT_TRY(grid_of(ctx, r, f, block, smem, cluster, &rgrid));

    const size_t es = hist_sample_size(r->sample);
    for (size_t start = 0; start < r->n; start += LAUNCH_MAX) {
        const size_t m = r->n - start < LAUNCH_MAX ? r->n - start : LAUNCH_MAX;
        p.x = static_cast<const unsigned char *>(r->x) + start * es;
        p.n = (unsigned)m;
        if (pbytes) CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(p.priv, 0, pbytes, ctx->stream));
        const int grid = persistent(rung) ? rgrid : (int)((m + BLOCK - 1) / BLOCK);
        CUPAT_TRY(launch(ctx, r, f, p, grid, block, smem, cluster));
        if (rung == HR_PRIVATE_GLOBAL) {
            int g = (int)((r->total + BLOCK - 1) / BLOCK);
            if (g > 4 * ctx->sm_count) g = 4 * ctx->sm_count;
            CUPAT_TRY(launch(ctx, r, (const void *)k_merge, p, g, BLOCK, 0, 0));
        }
    }
    return CUPAT_SUCCESS;
}
