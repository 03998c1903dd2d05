// SPDX-License-Identifier: Apache-2.0
// histogram_cluster.cu — one histogram spread over the shared memory of a
// thread-block cluster (CUDA Guide: thread-block clusters, distributed
// shared memory; sm_90). Block r of a cluster of S holds bins
// [r 2^sshift, (r + 1) 2^sshift); a sample's bin b goes to block b >> sshift
// by an atomic on cluster.map_shared_rank(hist, owner): a shared-memory
// atomic over the SM-to-SM network instead of one in the L2. 65536 u32 bins
// (256 KiB, more than one block may hold) are 4 slices of 64 KiB. Loads,
// runs and the final warp aggregation as vec16. The launch (a cluster
// dimension through cudaLaunchKernelExC) is in histogram_book.cu.
#include "histogram/histogram_device.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace cupat_histogram {
namespace {

template <typename T, bool RANGE, bool FAST8>
__global__ void __launch_bounds__(CLUSTER_BLOCK) k_cluster(Params p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    extern __shared__ __align__(16) unsigned char smem[];
    stage<T, RANGE>(p, smem);
    unsigned *h = reinterpret_cast<unsigned *>(smem + p.hist_off);
    const unsigned slice = 1u << p.sshift;
    zero_shared(h, slice);
    // Every block's slice zeroed (and its table staged) before any block
    // adds into it.
    cluster.sync();
    const Binner<T, RANGE> bin{p, smem};
    auto update = [&](unsigned b, unsigned c) {
        unsigned *dst = cluster.map_shared_rank(h, b >> p.sshift);
        atomicAdd(dst + (b & (slice - 1)), c);
    };
    Run<decltype(update)> run(update);
    for_each_bin16<T, FAST8>(p, bin, run);
    run.finish();
    // No block may leave (its shared memory goes) while others still add
    // into it; then each block flushes its own slice.
    cluster.sync();
    const unsigned first = cluster.block_rank() << p.sshift;
    for (unsigned j = threadIdx.x; j < slice && first + j < p.total; j += blockDim.x)
        if (h[j]) out_add(p, first + j, h[j]);
#endif
}

struct Kernels {
    template <typename T, bool R, bool F> static const void *get() { return (const void *)k_cluster<T, R, F>; }
};

} // namespace

const void *cluster_kernel(cupat_hist_sample s, int range, int fast8)
{
    return kernel_for<Kernels>(s, range, fast8);
}

} // namespace cupat_histogram
