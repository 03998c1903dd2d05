// SPDX-License-Identifier: Apache-2.0
// bfs_common.cu — what every CUDA rung of "bfs" uses: the work buffers a
// graph keeps, the initialization of levels / parents from the sources, the
// level counters read back each level, the grid size.
#include "internal.h"
#include "bfs/bfs_internal.h"
#include "bfs/bfs_device.cuh"

#include <string.h>

namespace cupat_bfs_dev {

__global__ void k_init(int32_t *levels, int32_t *parents, size_t n)
{
    for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < n;
         v += (size_t)gridDim.x * blockDim.x)
        levels[v] = parents[v] = -1;
}

// Sources are unique (the host deduplicated them): no two threads write one.
__global__ void k_sources(const int32_t *src, size_t k, int32_t *levels, int32_t *parents,
                          int32_t *queue)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < k;
         i += (size_t)gridDim.x * blockDim.x) {
        const int32_t s = src[i];
        levels[s] = 0;
        parents[s] = s;
        if (queue) queue[i] = s;
    }
}

__global__ void k_iota(int32_t *p, size_t n)
{
    for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < n;
         v += (size_t)gridDim.x * blockDim.x)
        p[v] = (int32_t)v;
}

// The source of every CSR entry: the last row whose start is <= e (binary
// search; once per graph).
__global__ void k_edge_src(const uint64_t *rp, size_t n, size_t m, int32_t *src)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < m;
         e += (size_t)gridDim.x * blockDim.x) {
        size_t lo = 0, hi = n; // rp[lo] <= e < rp[hi]
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (rp[mid] <= e) lo = mid;
            else hi = mid;
        }
        src[e] = (int32_t)lo;
    }
}

} // namespace cupat_bfs_dev

using namespace cupat_bfs_dev;

extern "C" {

unsigned cupat__bfs_grid(const cupat_ctx *ctx, size_t work, unsigned block)
{
    size_t cap = (size_t)(ctx->sm_count > 0 ? ctx->sm_count : 1) * 16;
    size_t g = (work + block - 1) / block;
    if (g > cap) g = cap;
    return (unsigned)(g ? g : 1);
}

static cupat_status alloc(cupat_ctx *ctx, void **p, size_t bytes)
{
    if (*p) return CUPAT_SUCCESS;
    return cupat__cuda(ctx, cudaMalloc(p, bytes ? bytes : 1), "cudaMalloc (bfs work)");
}

cupat_status cupat__bfs_cuda_work(cupat_ctx *ctx, cupat_graph *g, int rung)
{
    bfs_work *w = &g->work;
    const size_t n = g->n, words = (n + 31) / 32;
    if (!w->ctrl_host) CUPAT_CUDA_TRY(ctx, cudaMallocHost(&w->ctrl_host, sizeof(bfs_ctrl)));
    CUPAT_TRY(alloc(ctx, &w->ctrl, sizeof(bfs_ctrl)));
    if (rung >= BR_QUEUE) {
        CUPAT_TRY(alloc(ctx, (void **)&w->queue[0], n * sizeof(int32_t)));
        CUPAT_TRY(alloc(ctx, (void **)&w->queue[1], n * sizeof(int32_t)));
    }
    if (rung == BR_SCAN_COMPACT && !w->iota) {
        CUPAT_TRY(alloc(ctx, (void **)&w->flags, n));
        CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(w->flags, 0, n, ctx->stream));
        CUPAT_TRY(alloc(ctx, (void **)&w->iota, n * sizeof(int32_t)));
        k_iota<<<cupat__bfs_grid(ctx, n, 256), 256, 0, ctx->stream>>>(w->iota, n);
        CUPAT_TRY(cupat__launched(ctx, "k_iota"));
    }
    if (rung == BR_EDGE_BALANCED || rung == BR_DIRECTION_OPT) {
        CUPAT_TRY(alloc(ctx, &w->qoff[0], n * sizeof(uint64_t)));
        CUPAT_TRY(alloc(ctx, &w->qoff[1], n * sizeof(uint64_t)));
    }
    if (rung == BR_DIRECTION_OPT) {
        CUPAT_TRY(alloc(ctx, (void **)&w->bitmap[0], words * sizeof(uint32_t)));
        CUPAT_TRY(alloc(ctx, (void **)&w->bitmap[1], words * sizeof(uint32_t)));
    }
    if (rung == BR_EDGE_CENTRIC && !w->edge_src) {
        CUPAT_TRY(alloc(ctx, (void **)&w->edge_src, g->m * sizeof(int32_t)));
        k_edge_src<<<cupat__bfs_grid(ctx, g->m, 256), 256, 0, ctx->stream>>>(g->row_ptr, n, g->m,
                                                                              w->edge_src);
        CUPAT_TRY(cupat__launched(ctx, "k_edge_src"));
    }
    return CUPAT_SUCCESS;
}

void cupat__bfs_cuda_free(cupat_graph *g)
{
    bfs_work *w = &g->work;
    cudaFree(w->queue[0]);
    cudaFree(w->queue[1]);
    cudaFree(w->qoff[0]);
    cudaFree(w->qoff[1]);
    cudaFree(w->flags);
    cudaFree(w->iota);
    cudaFree(w->bitmap[0]);
    cudaFree(w->bitmap[1]);
    cudaFree(w->edge_src);
    cudaFree(w->ctrl);
    cudaFreeHost(w->ctrl_host);
    memset(w, 0, sizeof *w);
}

cupat_status cupat__bfs_cuda_init(cupat_ctx *ctx, const bfs_req *r, int32_t *queue)
{
    const size_t n = r->g->n;
    k_init<<<cupat__bfs_grid(ctx, n, 256), 256, 0, ctx->stream>>>(r->levels, r->parents, n);
    CUPAT_TRY(cupat__launched(ctx, "k_init"));
    int32_t *d_src = NULL;
    CUPAT_CUDA_TRY(ctx, cudaMallocAsync((void **)&d_src, r->nsrc * sizeof(int32_t), ctx->stream));
    cupat_status s = cupat__cuda(ctx, cudaMemcpyAsync(d_src, r->src, r->nsrc * sizeof(int32_t),
                                                      cudaMemcpyHostToDevice, ctx->stream),
                                 "cudaMemcpyAsync (sources)");
    if (!s) {
        k_sources<<<cupat__bfs_grid(ctx, r->nsrc, 256), 256, 0, ctx->stream>>>(
            d_src, r->nsrc, r->levels, r->parents, queue);
        s = cupat__launched(ctx, "k_sources");
    }
    cudaFreeAsync(d_src, ctx->stream);
    return s;
}

cupat_status cupat__bfs_ctrl_clear(cupat_ctx *ctx, cupat_graph *g)
{
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(g->work.ctrl, 0, sizeof(bfs_ctrl), ctx->stream));
    return CUPAT_SUCCESS;
}

cupat_status cupat__bfs_ctrl_read(cupat_ctx *ctx, cupat_graph *g, bfs_ctrl *out)
{
    CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(g->work.ctrl_host, g->work.ctrl, sizeof(bfs_ctrl),
                                        cudaMemcpyDeviceToHost, ctx->stream));
    CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    memcpy(out, g->work.ctrl_host, sizeof *out);
    return CUPAT_SUCCESS;
}

} // extern "C"
