// The CUDA Guide's copy-and-compute with cuda::memcpy_async + a block barrier
// (size_t: per-thread cp.async, arrive-on), alone, for synccheck.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cstdio>
namespace cg = cooperative_groups;
__global__ void k(const unsigned *g, unsigned *out, int tiles)
{
    __shared__ unsigned sh[1024];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    unsigned s = 0;
    for (int t = 0; t < tiles; t++) {
        cuda::memcpy_async(block, sh, g + (size_t)(blockIdx.x * tiles + t) * 1024, sizeof(sh), bar);
        bar.arrive_and_wait();
        s += sh[(threadIdx.x * 7) % 1024];
        block.sync();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main()
{
    const int B = 8, T = 4, N = B * T * 1024;
    unsigned *g, *o;
    cudaMalloc(&g, N * 4);
    cudaMalloc(&o, B * 256 * 4);
    cudaMemset(g, 1, N * 4);
    k<<<B, 256>>>(g, o, T);
    cudaError_t e = cudaDeviceSynchronize();
    unsigned h[1];
    cudaMemcpy(h, o, 4, cudaMemcpyDeviceToHost);
    printf("%s, out[0] = %u (want %u)\n", cudaGetErrorString(e), h[0], 0x01010101u * T);
    return e != cudaSuccess;
}
