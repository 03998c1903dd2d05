// SPDX-License-Identifier: Apache-2.0
// async_tma.cu — the Tensor Memory Accelerator (Guide 10.29; PTX
// cp.async.bulk, cp.async.bulk.tensor, mbarrier; sm_90) in `cupat lab
// async`: 1D bulk copies into an mbarrier ring against ordinary loads and
// cp.async; 2D tensor-map tiles: each swizzle mode's shared-memory image
// against the layout model (lab_async_tile_offset), and a tile copy and a
// transpose with TMA loads and stores against ordinary loads of the same
// 32 x 32 tiles. cuTensorMapEncodeTiled comes from the runtime's driver
// entry point (as the library's wgmma GEMM gets it): nothing links libcuda.
// Plain sm_90 is enough: TMA, bulk copies and mbarrier transaction counts
// are sm_90 features, not sm_90a ones (those are wgmma and setmaxnreg).
#include "async/async_internal.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string.h>

namespace cupat_async {

// ================================================================ bulk ==
// S stages of PER x 8 KiB; thread 0 asks the copy engine for each tile
// (one cp.async.bulk, its bytes counted on the stage's mbarrier), every
// thread waits on the stage's phase, sums, and after a __syncthreads
// thread 0 refills the stage with the tile S ahead.
template <int S, unsigned PER>
__global__ void __launch_bounds__(THREADS) k_bulk(const uint4 *src, unsigned nk, uint32_t *part)
{
#if ASY_SM90
    extern __shared__ __align__(128) uint4 dyn[];
    __shared__ __align__(8) uint64_t full[S];
    constexpr unsigned N4 = PER * T4, BYTES = N4 * 16;
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    auto issue = [&](unsigned k) {
        uint64_t *b = &full[k % S];
        mbar_expect_tx(b, BYTES); // thread 0's arrival and the bytes to wait for
        bulk_g2s(dyn + (k % S) * N4, src + tile_of(k) * N4, BYTES, b);
    };
    if (t == 0) {
        for (int i = 0; i < S; i++) mbar_init(&full[i], 1);
        mbar_fence_init();
        for (unsigned k = 0; k < (unsigned)S && k < K; k++) issue(k);
    }
    __syncthreads();
    uint32_t s = 0;
    for (unsigned k = 0; k < K; k++) {
        mbar_wait(&full[k % S], (k / S) & 1u);
        s += sum_tile(dyn + (k % S) * N4, N4, t, THREADS);
        __syncthreads(); // everyone has read the stage
        if (t == 0 && k + S < K) {
            fence_proxy_async(); // those reads before the copy engine's writes
            issue(k + S);
        }
    }
    block_total(s, part);
#endif
}

cupat_status exp_bulk(Run &X)
{
    Stream S;
    CUPAT_TRY(stream_make(X, S));
    const uint32_t *sums = nullptr;
    CUPAT_TRY(stream_sums(X, S, 0, 0, &sums));
    struct Case {
        const char *what;
        const void *fn;
        int stages;
        unsigned per;
    };
    const Case cases[] = {
        {"cp.async.bulk, 8 KiB tiles, 1 stage", (const void *)k_bulk<1, 1>, 1, 1},
        {"cp.async.bulk, 8 KiB tiles, 2 stages", (const void *)k_bulk<2, 1>, 2, 1},
        {"cp.async.bulk, 8 KiB tiles, 4 stages", (const void *)k_bulk<4, 1>, 4, 1},
        {"cp.async.bulk, 32 KiB tiles, 2 stages", (const void *)k_bulk<2, 4>, 2, 4},
        {"cp.async.bulk, 32 KiB tiles, 4 stages", (const void *)k_bulk<4, 4>, 4, 4},
    };
    for (const Case &c : cases) {
        lab_row *r = add(X, "%s", c.what);
        const size_t smem = (size_t)c.stages * c.per * TW * 4;
        CUPAT_TRY(std_row(X, S, r, c.fn, smem, c.per, sums, S.d));
        lab_row_note(r, "one thread issues, %zu KiB of stages", smem / 1024);
    }
    CUPAT_TRY(baseline_row(X, S, BASE_CPASYNC4));
    CUPAT_TRY(baseline_row(X, S, BASE_REGSTAGE));
    return baseline_row(X, S, BASE_DIRECT);
}

// ========================================================= tensor maps ==
constexpr unsigned ROWS = 4096, COLS = 8192; // the 2D experiments' matrix of u32: 128 MiB
constexpr unsigned TILE = 32;                 // 32 x 32 tiles, boxes of the mode's width

// Columns a box of the mode (its span in bytes / 4; none: the whole tile).
__host__ __device__ constexpr unsigned box_w(unsigned mode)
{
    return mode == 32 ? 8u : mode == 64 ? 16u : 32u;
}

PFN_cuTensorMapEncodeTiled_v12000 encode_fn()
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;
    if (!fn) {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
        else cudaGetLastError();
    }
    return fn;
}

// A rows x cols row-major u32 matrix as a tensor map: boxes of
// box_w(mode) x 32, the mode's swizzle, zeros outside the matrix.
cupat_status tensor_map(Run &X, CUtensorMap *m, const void *p, unsigned rows, unsigned cols, unsigned mode)
{
    PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
    if (!fn)
        return cupat__fail(X.ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab async: the driver has no cuTensorMapEncodeTiled");
    const cuuint64_t dims[2] = {cols, rows}, strides[1] = {(cuuint64_t)cols * 4};
    const cuuint32_t box[2] = {box_w(mode), TILE}, one[2] = {1, 1};
    const CUtensorMapSwizzle sw = mode == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
                                  : mode == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
                                  : mode == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                                : CU_TENSOR_MAP_SWIZZLE_NONE;
    const CUresult r = fn(m, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, const_cast<void *>(p), dims, strides, box, one,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return cupat__fail(X.ctx, CUPAT_ERROR_INTERNAL,
                           "lab async: cuTensorMapEncodeTiled failed (%d) for %u x %u, swizzle %u", (int)r, rows, cols,
                           mode);
    return CUPAT_SUCCESS;
}

// One box at (c0 innermost, r0) into shared memory at dst, its bytes
// counted on bar; and one box of shared memory at src stored to (c0, r0).
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *m, unsigned c0, unsigned r0, uint64_t *bar)
{
#if ASY_SM90
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];" ::"r"(smem_u32(dst)),
                 "l"((uint64_t)m), "r"(c0), "r"(r0), "r"(smem_u32(bar))
                 : "memory");
#endif
}
__device__ __forceinline__ void tma_store(const CUtensorMap *m, unsigned c0, unsigned r0, const void *src)
{
#if ASY_SM90
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"((uint64_t)m),
                 "r"(c0), "r"(r0), "r"(smem_u32(src))
                 : "memory");
#endif
}
// Wait until this thread's bulk stores are complete (their writes done, not
// only their shared-memory reads): the block's shared memory must outlive
// them, and the host reads the result after the kernel.
__device__ __forceinline__ void tma_store_drain()
{
#if ASY_SM90
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

// Thread 0: initialise bar and load the 32 x 32 tile at (c0, r0) as boxes
// of the mode's width, side by side (box b at b x 4 KiB / (32 / w)).
template <unsigned MODE>
__device__ __forceinline__ void load_tile(uint32_t *tile, const CUtensorMap *m, unsigned c0, unsigned r0, uint64_t *bar)
{
    constexpr unsigned W = box_w(MODE);
    mbar_init(bar, 1);
    mbar_fence_init();
    mbar_expect_tx(bar, TILE * TILE * 4);
    for (unsigned b = 0; b < TILE / W; b++) tma_load(tile + b * W * TILE, m, c0 + b * W, r0, bar);
}

// ============================================================= swizzle ==
// One tile's shared-memory image, word for word, and where the tile starts
// in shared memory modulo 1024 (the swizzle is a function of the address:
// the model needs 1024-byte alignment).
template <unsigned MODE>
__global__ void k_image(const __grid_constant__ CUtensorMap m, unsigned c0, unsigned r0, uint32_t *out)
{
#if ASY_SM90
    __shared__ __align__(1024) uint32_t tile[TILE * TILE];
    __shared__ __align__(8) uint64_t bar;
    if (threadIdx.x == 0) load_tile<MODE>(tile, &m, c0, r0, &bar);
    __syncthreads();
    mbar_wait(&bar, 0);
    for (unsigned i = threadIdx.x; i < TILE * TILE; i += blockDim.x) out[i] = tile[i];
    if (threadIdx.x == 0) out[TILE * TILE] = smem_u32(tile) & 1023u;
#endif
}

const char *mode_name(unsigned mode)
{
    return mode == 32 ? "32B" : mode == 64 ? "64B" : mode == 128 ? "128B" : "none";
}

// The matrix's word at (r, c): lab_async_word of its row-major index.
inline uint32_t mat(unsigned r, unsigned c)
{
    return lab_async_word((uint64_t)r * COLS + c);
}

template <unsigned MODE> cupat_status image_row(Run &X, const uint32_t *d, uint32_t *o, unsigned c0, unsigned r0)
{
    lab_row *r = add(X, "swizzle %s: tile at (%u, %u)%s", mode_name(MODE), r0, c0,
                     r0 + TILE > ROWS || c0 + TILE > COLS ? ", partly outside the matrix" : "");
    CUtensorMap m;
    CUPAT_TRY(tensor_map(X, &m, d, ROWS, COLS, MODE));
    CK(fill(X.s, o, 0xff, (TILE * TILE + 1) * 4)); // poison
    k_image<MODE><<<1, 128, 0, X.s>>>(m, c0, r0, o);
    CUPAT_TRY(cupat__launched(X.ctx, "k_image"));
    uint32_t h[TILE * TILE + 1];
    CK(copy(X.s, h, o, sizeof h));
    unsigned bad = 0, fr = 0, fc = 0;
    for (unsigned i = 0; i < TILE; i++)
        for (unsigned j = 0; j < TILE; j++) {
            const bool in = r0 + i < ROWS && c0 + j < COLS;
            const uint32_t want = in ? mat(r0 + i, c0 + j) : 0u; // outside: zeros (OOB_FILL_NONE)
            if (h[lab_async_tile_offset(MODE, i, j) / 4] != want && !bad++) fr = i, fc = j;
        }
    r->value = bad;
    r->ok = bad == 0 && h[TILE * TILE] == 0;
    if (h[TILE * TILE]) lab_row_note(r, "the tile starts %u bytes past a 1024-byte boundary; ", h[TILE * TILE]);
    if (bad) {
        const uint32_t want = r0 + fr < ROWS && c0 + fc < COLS ? mat(r0 + fr, c0 + fc) : 0u;
        int at = -1;
        for (unsigned k = 0; k < TILE * TILE && at < 0; k++)
            if (h[k] == want) at = (int)k * 4;
        lab_row_note(r, "%u of 1024 words not where the model puts them; (%u, %u): model byte %u, found at byte %d; ",
                     bad, fr, fc, lab_async_tile_offset(MODE, fr, fc), at);
    } else {
        lab_row_note(r, "every word where the model puts it%s; ", r0 + TILE > ROWS ? ", zeros outside the matrix" : "");
    }
    lab_row_note(r, "model: a warp reading a column is %d-way, a row %d-way", lab_async_ways(MODE, 1),
                 lab_async_ways(MODE, 0));
    return CUPAT_SUCCESS;
}

cupat_status exp_swizzle(Run &X)
{
    Bufs B;
    uint32_t *d = nullptr, *o = nullptr;
    CK(B.alloc((void **)&d, (size_t)ROWS * COLS * 4));
    CK(B.alloc((void **)&o, (TILE * TILE + 1) * 4));
    CUPAT_TRY(fill_words(X, d, (size_t)ROWS * COLS));
    CUPAT_TRY(image_row<0>(X, d, o, 64, 32));
    CUPAT_TRY(image_row<32>(X, d, o, 64, 32));
    CUPAT_TRY(image_row<64>(X, d, o, 64, 32));
    CUPAT_TRY(image_row<128>(X, d, o, 64, 32));
    return image_row<128>(X, d, o, COLS - 16, ROWS - 16);
}

// ============================================================== tensor ==
// Blocks of 32 x 8 threads a 32 x 32 tile (the TMA copy: one warp a tile,
// since one thread does the work). Copy: the tile through shared memory to
// the same place of the output. Transpose: tile (r0, c0) of the ROWS x COLS
// input to tile (c0, r0) of the COLS x ROWS output; a warp reads a column
// of the input tile and writes a row of the output tile, so the input
// tile's layout decides the bank conflicts: dense (32-way), padded to 33
// columns (none), or a TMA swizzle (lab_async_ways).

__global__ void __launch_bounds__(256) k_copy_plain(const uint32_t *in, uint32_t *out)
{
    __shared__ uint32_t tile[TILE][TILE];
    const unsigned tx = threadIdx.x, ty = threadIdx.y, c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
#pragma unroll
    for (unsigned k = ty; k < TILE; k += 8) tile[k][tx] = in[(size_t)(r0 + k) * COLS + c0 + tx];
    __syncthreads();
#pragma unroll
    for (unsigned k = ty; k < TILE; k += 8) out[(size_t)(r0 + k) * COLS + c0 + tx] = tile[k][tx];
}

template <unsigned MODE>
__global__ void __launch_bounds__(32)
    k_copy_tma(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out)
{
#if ASY_SM90
    __shared__ __align__(1024) uint32_t tile[TILE * TILE];
    __shared__ __align__(8) uint64_t bar;
    constexpr unsigned W = box_w(MODE);
    const unsigned c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    if (threadIdx.x == 0) {
        load_tile<MODE>(tile, &in, c0, r0, &bar);
        mbar_wait(&bar, 0); // the copy engine wrote it; the copy engine reads it: no proxy fence
        for (unsigned b = 0; b < TILE / W; b++) tma_store(&out, c0 + b * W, r0, tile + b * W * TILE);
        tma_store_drain();
    }
#endif
}

template <unsigned PAD> __global__ void __launch_bounds__(256) k_tr_plain(const uint32_t *in, uint32_t *out)
{
    __shared__ uint32_t tile[TILE][TILE + PAD];
    const unsigned tx = threadIdx.x, ty = threadIdx.y, c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
#pragma unroll
    for (unsigned k = ty; k < TILE; k += 8) tile[k][tx] = in[(size_t)(r0 + k) * COLS + c0 + tx];
    __syncthreads();
#pragma unroll
    for (unsigned k = ty; k < TILE; k += 8) out[(size_t)(c0 + k) * ROWS + r0 + tx] = tile[tx][k];
}

template <unsigned MODE>
__global__ void __launch_bounds__(256)
    k_tr_tma(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out)
{
#if ASY_SM90
    __shared__ __align__(1024) uint32_t tin[TILE * TILE];
    __shared__ __align__(1024) uint32_t tout[TILE * TILE];
    __shared__ __align__(8) uint64_t bar;
    constexpr unsigned W = box_w(MODE);
    const unsigned tx = threadIdx.x, ty = threadIdx.y, c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    const bool first = tx == 0 && ty == 0;
    if (first) load_tile<MODE>(tin, &in, c0, r0, &bar);
    __syncthreads();
    mbar_wait(&bar, 0);
    // output tile row k = input tile column k: lanes read down a column
    // (the swizzle's case) and write along a row
#pragma unroll
    for (unsigned k = ty; k < TILE; k += 8)
        tout[lab_async_tile_offset(MODE, k, tx) / 4] = tin[lab_async_tile_offset(MODE, tx, k) / 4];
    fence_proxy_async(); // these writes before the copy engine reads them
    __syncthreads();
    if (first) {
        for (unsigned b = 0; b < TILE / W; b++) tma_store(&out, r0 + b * W, c0, tout + b * W * TILE);
        tma_store_drain();
    }
#endif
}

// Time launch() (reps launches, the median) into r; GB/s read + write;
// check the whole output (copy: the input; transpose: its transpose).
template <class L> cupat_status tensor_row(Run &X, lab_row *r, uint32_t *o, uint32_t *h, bool transpose, L launch)
{
    const size_t n = (size_t)ROWS * COLS;
    CK(fill(X.s, o, 0xff, n * 4)); // poison
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, [&]() { return cupat__cuda(X.ctx, launch(), "kernel launch"); }));
    r->ms = median(X.t, X.reps);
    r->value = r->ms > 0 ? 2.0 * n * 4 / (r->ms * 1e-3) * 1e-9 : 0;
    CK(copy(X.s, h, o, n * 4));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        // transpose: out (c, r) at c * ROWS + r holds in (r, c)
        const uint32_t want = transpose ? mat((unsigned)(i % ROWS), (unsigned)(i / ROWS)) : lab_async_word(i);
        if (h[i] != want && !bad++) first = i;
    }
    r->ok = bad == 0;
    if (bad) lab_row_note(r, "%zu of %zu words wrong, first at %zu; ", bad, n, first);
    return CUPAT_SUCCESS;
}

template <unsigned MODE> cupat_status tma_rows(Run &X, const uint32_t *d, uint32_t *o, uint32_t *h, bool transpose)
{
    CUtensorMap mi, mo;
    CUPAT_TRY(tensor_map(X, &mi, d, ROWS, COLS, MODE));
    if (transpose) CUPAT_TRY(tensor_map(X, &mo, o, COLS, ROWS, MODE));
    else CUPAT_TRY(tensor_map(X, &mo, o, ROWS, COLS, MODE));
    const dim3 grid(COLS / TILE, ROWS / TILE);
    lab_row *r = add(X, "%s: TMA load + TMA store, swizzle %s", transpose ? "transpose" : "copy", mode_name(MODE));
    CUPAT_TRY(tensor_row(X, r, o, h, transpose, [&]() {
        if (transpose) k_tr_tma<MODE><<<grid, dim3(32, 8), 0, X.s>>>(mi, mo);
        else k_copy_tma<MODE><<<grid, 32, 0, X.s>>>(mi, mo);
        return cudaGetLastError();
    }));
    lab_row_note(r, "%u box%s of %u x 32 a tile; ", TILE / box_w(MODE), box_w(MODE) < TILE ? "es" : "", box_w(MODE));
    if (transpose)
        lab_row_note(r, "column reads %d-way, row writes %d-way (model)", lab_async_ways(MODE, 1),
                     lab_async_ways(MODE, 0));
    else lab_row_note(r, "one warp a tile, no thread touches the data");
    return CUPAT_SUCCESS;
}

cupat_status exp_tensor(Run &X)
{
    const size_t n = (size_t)ROWS * COLS;
    Bufs B;
    uint32_t *d = nullptr, *o = nullptr;
    CK(B.alloc((void **)&d, n * 4));
    CK(B.alloc((void **)&o, n * 4));
    CUPAT_TRY(fill_words(X, d, n));
    uint32_t *h = (uint32_t *)malloc(n * 4);
    if (!h) return oom(X);
    const dim3 grid(COLS / TILE, ROWS / TILE), block(32, 8);
    cupat_status s = CUPAT_SUCCESS;
    lab_row *r = add(X, "copy: ordinary loads and stores through shared memory");
    s = tensor_row(X, r, o, h, false, [&]() {
        k_copy_plain<<<grid, block, 0, X.s>>>(d, o);
        return cudaGetLastError();
    });
    if (!s) s = tma_rows<0>(X, d, o, h, false);
    if (!s) s = tma_rows<32>(X, d, o, h, false);
    if (!s) s = tma_rows<64>(X, d, o, h, false);
    if (!s) s = tma_rows<128>(X, d, o, h, false);
    if (!s) {
        r = add(X, "transpose: ordinary loads, dense 32 x 32 tile");
        s = tensor_row(X, r, o, h, true, [&]() {
            k_tr_plain<0><<<grid, block, 0, X.s>>>(d, o);
            return cudaGetLastError();
        });
        lab_row_note(r, "column reads 32-way");
    }
    if (!s) {
        r = add(X, "transpose: ordinary loads, tile padded to 33 columns");
        s = tensor_row(X, r, o, h, true, [&]() {
            k_tr_plain<1><<<grid, block, 0, X.s>>>(d, o);
            return cudaGetLastError();
        });
        lab_row_note(r, "column reads conflict-free");
    }
    if (!s) s = tma_rows<0>(X, d, o, h, true);
    if (!s) s = tma_rows<32>(X, d, o, h, true);
    if (!s) s = tma_rows<64>(X, d, o, h, true);
    if (!s) s = tma_rows<128>(X, d, o, h, true);
    free(h);
    return s;
}

} // namespace cupat_async
