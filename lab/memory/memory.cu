// SPDX-License-Identifier: Apache-2.0
// memory.cu — the kernels of `cupat lab memory` and their host halves (buffers,
// timing, checks); the experiment table and the host models are in
// memory_lab.c. Each experiment is short by default (tens of milliseconds of
// GPU time) and every row that produces data checks it against the host.
#include "memory/memory_run.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace cupat_memlab {

lab_mem_row *add(Run &X, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lab_mem_row *r = lab_row_vadd(X.rows, X.n, fmt, ap);
    va_end(ap);
    return r;
}

void note(lab_mem_row *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lab_row_vnote(r, fmt, ap);
    va_end(ap);
}

} // namespace cupat_memlab

namespace {

using namespace cupat_memlab;

__global__ void k_iota(unsigned *p, size_t n, unsigned mod)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = mod ? (unsigned)(i % mod) : (unsigned)i;
}

// Sum of n words (wrapping), one atomicAdd a thread.
__global__ void k_sum_u32(const unsigned *p, size_t n, unsigned *out)
{
    unsigned s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += p[i];
    atomicAdd(out, s);
}

cupat_status iota(Run &X, unsigned *p, size_t n, unsigned mod)
{
    k_iota<<<X.sms * 8, 256, 0, X.s>>>(p, n, mod);
    return LAUNCHED("k_iota");
}

// ---- cache: ld.ca / ld.cg (PCCP 4.3, -Xptxas -dlcm=ca|cg per load) --------

enum { H_DEFAULT, H_CA, H_CG, H_LDG, H_CS };
const char *const hint_names[] = {"default ld", "__ldca (ld.ca: L1)", "__ldcg (ld.cg: L2 only)", "__ldg (read-only)",
                                  "__ldcs (ld.cs: streaming)"};

template <int H> __device__ __forceinline__ unsigned ld(const unsigned *p)
{
    if (H == H_CA) return __ldca(p);
    if (H == H_CG) return __ldcg(p);
    if (H == H_LDG) return __ldg(p);
    if (H == H_CS) return __ldcs(p);
    return *p;
}

constexpr int WINDOW = 8192; // words a block re-reads: 32 KiB

// Each block reads its own 32 KiB window `passes` times: served by L1 when
// the loads may cache there, by L2 when they may not.
template <int H> __global__ void __launch_bounds__(256) k_window(const unsigned *in, int passes, unsigned *out)
{
    const unsigned *w = in + (size_t)blockIdx.x * WINDOW;
    unsigned s = 0;
    for (int p = 0; p < passes; p++)
        for (int j = threadIdx.x; j < WINDOW; j += blockDim.x) s += ld<H>(w + j);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int H> __global__ void k_offset_copy(const unsigned *in, unsigned *out, size_t n, int offset)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = ld<H>(in + i + offset);
}

template <int H> cupat_status window_row(Run &X, const unsigned *in, unsigned *out, unsigned *host, int blocks, int passes,
                                         const char *label)
{
    lab_mem_row *r = add(X, "%s%s", label, hint_names[H]);
    CUPAT_TRY(time_row(X, r, (double)blocks * WINDOW * 4 * passes, [&]() -> cupat_status {
        k_window<H><<<blocks, 256, 0, X.s>>>(in, passes, out);
        return LAUNCHED("k_window");
    }));
    CK(copy(X.s, host, out, (size_t)blocks * 256 * 4));
    // in[i] = i % 7: thread t of block b adds words j = t, t + 256, ... of its window.
    r->ok = 1;
    for (int b = 0; b < blocks && r->ok; b++)
        for (int t = 0; t < 256; t++) {
            unsigned e = 0;
            for (int j = t; j < WINDOW; j += 256) e += (unsigned)(((size_t)b * WINDOW + j) % 7);
            if (host[b * 256 + t] != e * (unsigned)passes) {
                r->ok = 0;
                snprintf(r->note, sizeof r->note, "block %d thread %d: %u, expected %u", b, t, host[b * 256 + t], e * passes);
                break;
            }
        }
    if (r->ok) snprintf(r->note, sizeof r->note, "%d blocks x 32 KiB windows, each read %d times", blocks, passes);
    return CUPAT_SUCCESS;
}

template <int H> cupat_status offset_row(Run &X, const unsigned *in, unsigned *out, unsigned *host, size_t n)
{
    lab_mem_row *r = add(X, "offset 11 copy, %s", hint_names[H]);
    CUPAT_TRY(time_row(X, r, 2.0 * n * 4, [&]() -> cupat_status {
        k_offset_copy<H><<<(unsigned)((n + 255) / 256), 256, 0, X.s>>>(in, out, n, 11);
        return LAUNCHED("k_offset_copy");
    }));
    CK(copy(X.s, host, out, n * 4));
    r->ok = 1;
    for (size_t i = 0; i < n && r->ok; i++) r->ok = host[i] == (unsigned)((i + 11) % 7);
    snprintf(r->note, sizeof r->note, "misaligned by 44 bytes: each warp spans two 128-byte lines (PCCP readOffset)");
    return CUPAT_SUCCESS;
}

cupat_status exp_cache(Run &X)
{
    const size_t n = (size_t)1 << 24;
    const int blocks = 2 * X.sms, passes = 32;
    Bufs b;
    unsigned *in = nullptr, *out = nullptr;
    unsigned *host = (unsigned *)malloc(n * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&in, (n + 64) * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&out, n * 4), "cudaMalloc");
    if (!s) s = iota(X, in, n + 64, 7);
    if (!s) s = window_row<H_DEFAULT>(X, in, out, host, blocks, passes, "window re-read, ");
    if (!s) s = window_row<H_CA>(X, in, out, host, blocks, passes, "window re-read, ");
    if (!s) s = window_row<H_CG>(X, in, out, host, blocks, passes, "window re-read, ");
    if (!s) s = window_row<H_LDG>(X, in, out, host, blocks, passes, "window re-read, ");
    if (!s) s = offset_row<H_CA>(X, in, out, host, n);
    if (!s) s = offset_row<H_CG>(X, in, out, host, n);
    if (!s) s = offset_row<H_CS>(X, in, out, host, n);
    free(host);
    return s;
}

// ---- stride ------------------------------------------------------------------

__global__ void k_stride(const unsigned *in, unsigned *out, size_t n, int stride)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i * stride];
}

cupat_status exp_stride(Run &X)
{
    const size_t n = (size_t)1 << 21;
    const int maxs = 32;
    Bufs b;
    unsigned *in = nullptr, *out = nullptr;
    unsigned *host = (unsigned *)malloc(n * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&in, n * maxs * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&out, n * 4), "cudaMalloc");
    if (!s) s = iota(X, in, n * maxs, 0);
    for (int st = 1; st <= maxs && !s; st *= 2) {
        lab_mem_row *r = add(X, "stride %d words", st);
        s = time_row(X, r, 2.0 * n * 4, [&]() -> cupat_status {
            k_stride<<<(unsigned)(n / 256), 256, 0, X.s>>>(in, out, n, st);
            return LAUNCHED("k_stride");
        });
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, host, out, n * 4), "cudaMemcpyAsync");
        if (s) break;
        r->ok = 1;
        for (size_t i = 0; i < n && r->ok; i++) r->ok = host[i] == (unsigned)(i * st);
        const int sectors = 4 * st < 32 ? 4 * st : 32;
        snprintf(r->note, sizeof r->note, "a warp's 32 loads touch %d 32-byte sectors (%d useful bytes of %d moved)",
                 sectors, 128, sectors * 32);
    }
    free(host);
    return s;
}

// ---- align -------------------------------------------------------------------------

struct S3 {
    float x, y, z;
};
struct __align__(16) S3A {
    float x, y, z;
};

template <class T> __global__ void k_fill_s(T *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        T v;
        v.x = (float)(i % 7), v.y = (float)(i % 5), v.z = (float)(i % 3);
        p[i] = v;
    }
}

template <class T> __global__ void k_sum3(const T *p, float *out, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        const T v = p[i];
        out[i] = v.x + v.y + v.z;
    }
}

template <class T> cupat_status align_row(Run &X, const char *name, void *buf, float *out, float *host, size_t n)
{
    T *p = (T *)buf;
    k_fill_s<T><<<X.sms * 8, 256, 0, X.s>>>(p, n);
    CUPAT_TRY(LAUNCHED("k_fill_s"));
    lab_mem_row *r = add(X, "%s (%zu bytes)", name, sizeof(T));
    CUPAT_TRY(time_row(X, r, (double)n * (12 + 4), [&]() -> cupat_status {
        k_sum3<T><<<(unsigned)(n / 256), 256, 0, X.s>>>(p, out, n);
        return LAUNCHED("k_sum3");
    }));
    CK(copy(X.s, host, out, n * 4));
    r->ok = 1;
    for (size_t i = 0; i < n && r->ok; i++) r->ok = host[i] == (float)(i % 7 + i % 5 + i % 3);
    snprintf(r->note, sizeof r->note, "%s; GB/s of the 16 useful bytes an element",
             sizeof(T) == 12 ? "three 4-byte loads (12 B is not a vector size)" : "one 16-byte load (LDG.128)");
    return CUPAT_SUCCESS;
}

cupat_status exp_align(Run &X)
{
    const size_t n = (size_t)1 << 23;
    Bufs b;
    void *buf = nullptr;
    float *out = nullptr, *host = (float *)malloc(n * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc(&buf, n * 16), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&out, n * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, fill(X.s, buf, 0, n * 16), "cudaMemsetAsync"); // padding and float4.w defined
    if (!s) s = align_row<S3>(X, "struct {float x, y, z}", buf, out, host, n);
    if (!s) s = align_row<S3A>(X, "__align__(16) struct {float x, y, z}", buf, out, host, n);
    if (!s) s = align_row<float4>(X, "float4", buf, out, host, n);
    free(host);
    return s;
}

// ---- pitch ----------------------------------------------------------------------

__global__ void k_add2d(float *p, size_t pitch_elems, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) p[(size_t)y * pitch_elems + x] += 1.0f;
}

cupat_status exp_pitch(Run &X)
{
    const int w = 1000, h = 4096; // 4000-byte rows: every row but the first starts misaligned
    const size_t row = (size_t)w * 4;
    Bufs b;
    float *plain = nullptr, *pitched = nullptr;
    size_t pitch = 0;
    float *hm = (float *)malloc(row * h), *back = (float *)malloc(row * h);
    if (!hm || !back) {
        free(hm), free(back);
        return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    }
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&plain, row * h), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, cudaMallocPitch((void **)&pitched, &pitch, row, h), "cudaMallocPitch");
    for (size_t i = 0; i < (size_t)w * h; i++) hm[i] = (float)(i % 1000);
    if (!s) s = cupat__cuda(X.ctx, copy(X.s, plain, hm, row * h), "cudaMemcpyAsync");
    if (!s) s = cupat__cuda(X.ctx, cudaMemcpy2DAsync(pitched, pitch, hm, row, row, h, cudaMemcpyHostToDevice, X.s), "cudaMemcpy2DAsync");
    if (!s) s = cupat__cuda(X.ctx, cudaStreamSynchronize(X.s), "cudaStreamSynchronize");
    const dim3 blk(32, 8), grid((w + 31) / 32, h / 8);
    for (int k = 0; k < 2 && !s; k++) {
        float *p = k ? pitched : plain;
        const size_t pe = k ? pitch / 4 : (size_t)w;
        lab_mem_row *r = add(X, k ? "cudaMallocPitch, pitch %zu B" : "cudaMalloc, rows of %zu B", k ? pitch : row);
        s = time_row(X, r, 2.0 * row * h, [&]() -> cupat_status {
            k_add2d<<<grid, blk, 0, X.s>>>(p, pe, w, h);
            return LAUNCHED("k_add2d");
        });
        if (!s) s = cupat__cuda(X.ctx, cudaMemcpy2DAsync(back, row, p, pe * 4, row, h, cudaMemcpyDeviceToHost, X.s), "cudaMemcpy2DAsync");
        if (!s) s = cupat__cuda(X.ctx, cudaStreamSynchronize(X.s), "cudaStreamSynchronize");
        if (s) break;
        r->ok = 1;
        for (size_t i = 0; i < (size_t)w * h && r->ok; i++) r->ok = back[i] == hm[i] + (float)(X.reps + 1);
        snprintf(r->note, sizeof r->note, "%d x %d floats, += 1 (read + write); %s", w, h,
                 k ? "every row starts on a 512-byte boundary" : "row y starts at 4000 y bytes: most rows misaligned");
    }
    // cudaMalloc3D / cudaMemcpy3D round trip (the Guide's 64 x 64 x 64).
    if (!s) {
        const int e = 64;
        cudaPitchedPtr dp;
        const cudaExtent ext = make_cudaExtent(e * sizeof(float), e, e);
        s = cupat__cuda(X.ctx, cudaMalloc3D(&dp, ext), "cudaMalloc3D");
        if (!s) {
            float *h3 = hm, *b3 = back; // 64^3 floats fit in the 2D buffers
            for (int i = 0; i < e * e * e; i++) h3[i] = (float)i;
            cudaMemcpy3DParms up = {};
            up.srcPtr = make_cudaPitchedPtr(h3, e * sizeof(float), e, e);
            up.dstPtr = dp;
            up.extent = ext;
            up.kind = cudaMemcpyHostToDevice;
            cudaMemcpy3DParms down = {};
            down.srcPtr = dp;
            down.dstPtr = make_cudaPitchedPtr(b3, e * sizeof(float), e, e);
            down.extent = ext;
            down.kind = cudaMemcpyDeviceToHost;
            s = cupat__cuda(X.ctx, cudaMemcpy3D(&up), "cudaMemcpy3D");
            if (!s) s = cupat__cuda(X.ctx, cudaMemcpy3D(&down), "cudaMemcpy3D");
            lab_mem_row *r = add(X, "cudaMalloc3D 64x64x64 round trip");
            r->ok = !s && !memcmp(h3, b3, (size_t)e * e * e * 4);
            r->value = (double)dp.pitch;
            snprintf(r->note, sizeof r->note, "pitch %zu B for 256-byte rows, slice pitch %zu B (value: the pitch)", dp.pitch,
                     dp.pitch * e);
            cudaFree(dp.ptr);
        }
    }
    if (pitched) cudaFree(pitched);
    free(hm), free(back);
    return s;
}

// ---- symbols -------------------------------------------------------------------------

__device__ float devData;  // PCCP 4.1 checkGlobalVariable
__managed__ int managedVar; // PCCP 4.2

__global__ void k_add_devdata(float v)
{
    devData += v;
}

__global__ void k_inc_managed()
{
    managedVar += 1;
}

cupat_status exp_symbols(Run &X)
{
    float v = 3.14f, got = 0;
    // The symbol copies on the lab's stream (cudaMemcpyToSymbol itself runs on
    // the legacy stream, which the lab's non-blocking stream does not wait for).
    CK(cudaMemcpyToSymbolAsync(devData, &v, sizeof v, 0, cudaMemcpyHostToDevice, X.s));
    k_add_devdata<<<1, 1, 0, X.s>>>(2.0f);
    CUPAT_TRY(LAUNCHED("k_add_devdata"));
    CK(cudaMemcpyFromSymbolAsync(&got, devData, sizeof got, 0, cudaMemcpyDeviceToHost, X.s));
    CK(cudaStreamSynchronize(X.s));
    lab_mem_row *r = add(X, "MemcpyToSymbol 3.14, kernel += 2, FromSymbol");
    r->value = got;
    r->ok = got == 3.14f + 2.0f;
    snprintf(r->note, sizeof r->note, "PCCP prints 5.14; got %.7g", (double)got);

    void *addr = nullptr;
    size_t size = 0;
    CK(cudaGetSymbolAddress(&addr, devData));
    CK(cudaGetSymbolSize(&size, devData));
    v = 1.5f;
    CK(copy(X.s, addr, &v, sizeof v)); // &devData itself is not valid on the host
    k_add_devdata<<<1, 1, 0, X.s>>>(2.0f);
    CUPAT_TRY(LAUNCHED("k_add_devdata"));
    CK(cudaStreamSynchronize(X.s));
    CK(copy(X.s, &got, addr, sizeof got));
    r = add(X, "GetSymbolAddress + cudaMemcpy 1.5, += 2");
    r->value = got;
    r->ok = got == 3.5f && size == sizeof(float);
    snprintf(r->note, sizeof r->note, "cudaGetSymbolSize %zu bytes; got %.7g", size, (double)got);

    managedVar = 10; // the host writes the __managed__ variable directly
    k_inc_managed<<<1, 1, 0, X.s>>>();
    CUPAT_TRY(LAUNCHED("k_inc_managed"));
    CK(cudaDeviceSynchronize()); // before the host reads it again
    r = add(X, "__managed__ int: host 10, kernel += 1");
    r->value = managedVar;
    r->ok = managedVar == 11;
    snprintf(r->note, sizeof r->note, "the host reads %d after cudaDeviceSynchronize", managedVar);
    return CUPAT_SUCCESS;
}

// ---- uva ----------------------------------------------------------------------------------

cupat_status sum_row(Run &X, lab_mem_row *r, const unsigned *p, size_t n, unsigned *dsum, unsigned expect)
{
    unsigned got = 0;
    CUPAT_TRY(time_row(X, r, (double)n * 4, [&]() -> cupat_status { return sum_u32(X, p, n, dsum); }));
    CK(copy(X.s, &got, dsum, 4));
    r->ok = got == expect;
    return CUPAT_SUCCESS;
}

cupat_status exp_uva(Run &X)
{
    const size_t n = (size_t)1 << 24;
    unsigned *h = nullptr, *d = nullptr, *dsum = nullptr;
    Bufs b;
    CK(cudaHostAlloc((void **)&h, n * 4, cudaHostAllocMapped));
    unsigned expect = 0;
    for (size_t i = 0; i < n; i++) expect += (h[i] = (unsigned)(i % 13));
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&dsum, 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&d, n * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, copy(X.s, d, h, n * 4), "cudaMemcpyAsync");
    cudaPointerAttributes pa;
    if (!s) s = cupat__cuda(X.ctx, cudaPointerGetAttributes(&pa, h), "cudaPointerGetAttributes");
    if (!s) {
        lab_mem_row *r = add(X, "kernel reads the cudaHostAlloc pointer");
        s = sum_row(X, r, h, n, dsum, expect); // no cudaHostGetDevicePointer: under UVA the host pointer is the device's
        snprintf(r->note, sizeof r->note, "zero-copy over the bus; attributes: %s memory, device pointer %s host pointer",
                 pa.type == cudaMemoryTypeHost ? "host" : "other", pa.devicePointer == (void *)h ? "==" : "!=");
    }
    if (!s) {
        lab_mem_row *r = add(X, "the same sum from device memory");
        s = sum_row(X, r, d, n, dsum, expect);
        snprintf(r->note, sizeof r->note, "for comparison");
    }
    cudaFreeHost(h);
    return s;
}

// ---- transfers -------------------------------------------------------------------------

cupat_status exp_transfers(Run &X)
{
    const size_t total = (size_t)4 << 20;
    unsigned char *h = nullptr, *d = nullptr;
    Bufs b;
    CK(cudaMallocHost((void **)&h, total));
    for (size_t i = 0; i < total; i++) h[i] = (unsigned char)(i * 7);
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&d, total), "cudaMalloc");
    static const size_t chunks[] = {4096, 65536, (size_t)4 << 20};
    unsigned char *back = (unsigned char *)malloc(total);
    if (!back && !s) s = cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    for (int k = 0; k < 3 && !s; k++) {
        const size_t c = chunks[k], cnt = total / c;
        lab_mem_row *r = add(X, "%zu x %zu KiB cudaMemcpyAsync", cnt, c >> 10);
        s = time_row(X, r, (double)total, [&]() -> cupat_status {

            for (size_t i = 0; i < cnt; i++) {
                const cudaError_t e = cudaMemcpyAsync(d + i * c, h + i * c, c, cudaMemcpyHostToDevice, X.s);
                if (e) return cupat__cuda(X.ctx, e, "cudaMemcpyAsync");
            }
            return CUPAT_SUCCESS;
        });
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, back, d, total), "cudaMemcpyAsync");
        if (!s) r->ok = !memcmp(back, h, total);
        if (!s) snprintf(r->note, sizeof r->note, "pinned; %.2f us a call", r->ms * 1e3 / (double)cnt);
    }
    free(back);
    cudaFreeHost(h);
    return s;
}

// ---- bytes in flight (PMPP 6.2) ---------------------------------------------------------

template <int U> __global__ void __launch_bounds__(256) k_read_vec(const float4 *in, size_t n4, float *out)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (size_t base = t; base < n4; base += U * T) {
        float4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++) v[k] = base + k * T < n4 ? in[base + k * T] : make_float4(0, 0, 0, 0);
#pragma unroll
        for (int k = 0; k < U; k++) s += v[k].x + v[k].y + v[k].z + v[k].w;
    }
    out[t] = s;
}

__global__ void k_ones(float *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = 1.0f;
}

template <int U> cupat_status inflight_row(Run &X, const float4 *in, size_t n4, float *out, float *host, int per_sm)
{
    const int blocks = X.sms * per_sm;
    const double bytes_sm = (double)per_sm * 256 * U * 16;
    lab_mem_row *r = add(X, "%2d blocks/SM x 256 x %d float4", per_sm, U);
    CUPAT_TRY(time_row(X, r, (double)n4 * 16, [&]() -> cupat_status {
        k_read_vec<U><<<blocks, 256, 0, X.s>>>(in, n4, out);
        return LAUNCHED("k_read_vec");
    }));
    CK(copy(X.s, host, out, (size_t)blocks * 256 * 4));
    double sum = 0;
    for (int i = 0; i < blocks * 256; i++) sum += host[i];
    r->ok = sum == 4.0 * (double)n4;
    snprintf(r->note, sizeof r->note, "up to %.0f KiB of loads in flight an SM", bytes_sm / 1024);
    return CUPAT_SUCCESS;
}

cupat_status exp_inflight(Run &X)
{
    const size_t n4 = (size_t)1 << 24; // 256 MiB
    Bufs b;
    float4 *in = nullptr;
    float *out = nullptr, *host = (float *)malloc((size_t)X.sms * 8 * 256 * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&in, n4 * 16), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&out, (size_t)X.sms * 8 * 256 * 4), "cudaMalloc");
    if (!s) {
        k_ones<<<X.sms * 8, 256, 0, X.s>>>((float *)in, n4 * 4);
        s = LAUNCHED("k_ones");
    }
    if (!s) s = inflight_row<1>(X, in, n4, out, host, 1);
    if (!s) s = inflight_row<4>(X, in, n4, out, host, 1);
    if (!s) s = inflight_row<1>(X, in, n4, out, host, 2);
    if (!s) s = inflight_row<1>(X, in, n4, out, host, 8);
    if (!s) s = inflight_row<4>(X, in, n4, out, host, 2);
    if (!s) s = inflight_row<4>(X, in, n4, out, host, 8);
    free(host);
    return s;
}

// ---- carveout -------------------------------------------------------------------------

__global__ void __launch_bounds__(256) k_carve(const unsigned *in, int passes, unsigned *out)
{
    const unsigned *w = in + (size_t)blockIdx.x * WINDOW;
    unsigned s = 0;
    for (int p = 0; p < passes; p++)
        for (int j = threadIdx.x; j < WINDOW; j += blockDim.x) s += __ldca(w + j);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

cupat_status exp_carveout(Run &X)
{
    const int blocks = 4 * X.sms, passes = 32; // 4 x 32 KiB windows an SM: they fit the L1 only if it is large
    Bufs b;
    unsigned *in = nullptr, *out = nullptr;
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&in, (size_t)blocks * WINDOW * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&out, (size_t)blocks * 256 * 4), "cudaMalloc");
    if (!s) s = iota(X, in, (size_t)blocks * WINDOW, 7);
    static const int pct[] = {0, 25, 50, 75, 100};
    unsigned *host = (unsigned *)malloc((size_t)blocks * 256 * 4), *first = (unsigned *)malloc((size_t)blocks * 256 * 4);
    if ((!host || !first) && !s) s = cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    for (int k = 0; k < 5 && !s; k++) {
        s = cupat__cuda(X.ctx, cudaFuncSetAttribute(k_carve, cudaFuncAttributePreferredSharedMemoryCarveout, pct[k]),
                        "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
        if (s) break;
        lab_mem_row *r = add(X, "carveout %d %% shared", pct[k]);
        s = time_row(X, r, (double)blocks * WINDOW * 4 * passes, [&]() -> cupat_status {
            k_carve<<<blocks, 256, 0, X.s>>>(in, passes, out);
            return LAUNCHED("k_carve");
        });
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, k ? host : first, out, (size_t)blocks * 256 * 4), "cudaMemcpyAsync");
        if (s) break;
        r->ok = !k || !memcmp(host, first, (size_t)blocks * 256 * 4);
        snprintf(r->note, sizeof r->note, "a hint: the rest of the 256 KiB is L1; 4 x 32 KiB re-read windows an SM");
    }
    if (!s) s = cupat__cuda(X.ctx, cudaFuncSetAttribute(k_carve, cudaFuncAttributePreferredSharedMemoryCarveout, -1), "reset");
    free(host), free(first);
    return s;
}

// ---- banks ---------------------------------------------------------------------------------

enum { B_STRIDE, B_BROADCAST, B_MULTICAST, B_DOUBLE };

// Each lane reads word base(lane) + (k % 8) x 1024 (a multiple of 32 words:
// the same banks every step), iters times.
template <int M> __global__ void __launch_bounds__(256) k_bank(int param, int iters, unsigned *out)
{
    __shared__ unsigned s[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) s[i] = (unsigned)i;
    __syncthreads();
    const int lane = threadIdx.x & 31;
    int base = M == B_STRIDE ? lane * param : M == B_BROADCAST ? 0 : M == B_MULTICAST ? lane / param : lane * param * 2;
    unsigned acc = 0;
    for (int k = 0; k < iters; k++) {
        const int w = base + (k & 7) * 1024;
        if (M == B_DOUBLE) {
            const unsigned long long v = *(const unsigned long long *)&s[w]; // one 8-byte word
            acc += (unsigned)v + (unsigned)(v >> 32);
        } else {
            acc += s[w];
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <int M> cupat_status bank_row(Run &X, unsigned *out, unsigned *host, int param, const char *name, int word_bytes)
{
    const int blocks = X.sms * 4, iters = 4096;
    lab_mem_row *r = add(X, "%s", name);
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, [&]() -> cupat_status {
        k_bank<M><<<blocks, 256, 0, X.s>>>(param, iters, out);
        return LAUNCHED("k_bank");
    }));
    r->ms = median(X.t, X.reps);
    r->value = (double)blocks * 256 * iters / (r->ms * 1e-3) * 1e-9;
    CK(copy(X.s, host, out, (size_t)blocks * 256 * 4));
    uint32_t addr[32];
    r->ok = 1;
    for (int lane = 0; lane < 32; lane++) {
        const int base = M == B_STRIDE ? lane * param : M == B_BROADCAST ? 0 : M == B_MULTICAST ? lane / param : lane * param * 2;
        addr[lane] = (uint32_t)base * 4;
        unsigned e = 0;
        for (int k = 0; k < iters; k++) {
            const unsigned w = (unsigned)(base + (k & 7) * 1024);
            e += M == B_DOUBLE ? w + (w + 1) : w;
        }
        for (int i = lane; i < blocks * 256 && r->ok; i += 32) r->ok = host[i] == e;
    }
    snprintf(r->note, sizeof r->note, "%d wavefront(s) a warp load by the bank model; %.0f GB/s", lab_memory_wavefronts(addr, word_bytes),
             r->value * word_bytes);
    return CUPAT_SUCCESS;
}

// cudaDeviceSetSharedMemConfig chose 4- or 8-byte banks on cc 3.x (PCCP 5.1
// "Access Mode"); since Maxwell the banks are 4 bytes and the call does
// nothing (deprecated in CUDA 12): the configuration read back is still 4,
// and the 8-byte row runs as before.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma nv_diag_suppress 1444
// The calls' own errors are reported in the note, not raised: a runtime
// that refuses the deprecated call says as much as one that ignores it.
cupat_status bank_config_row(Run &X, unsigned *out, unsigned *host)
{
    cudaSharedMemConfig before = cudaSharedMemBankSizeDefault, after = cudaSharedMemBankSizeDefault;
    const cudaError_t e0 = cudaDeviceGetSharedMemConfig(&before);
    const cudaError_t e1 = cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte);
    const cudaError_t e2 = cudaDeviceGetSharedMemConfig(&after);
    cudaGetLastError(); // not sticky: clear whatever the three left
    const cupat_status s = bank_row<B_DOUBLE>(X, out, host, 1, "8-byte words, stride 1, after SetSharedMemConfig(8)", 8);
    cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeDefault);
    cudaGetLastError();
    CUPAT_TRY(s);
    const auto bytes = [](cudaSharedMemConfig c) {
        return c == cudaSharedMemBankSizeEightByte ? 8 : c == cudaSharedMemBankSizeFourByte ? 4 : 0;
    };
    lab_mem_row *r = &X.rows[*X.n - 1];
    if (e0 || e1 || e2)
        note(r, "; Get / Set / Get returned %s / %s / %s", cudaGetErrorName(e0), cudaGetErrorName(e1), cudaGetErrorName(e2));
    else note(r, "; banks read back: %d bytes (before: %d; 0: default): a no-op since Maxwell", bytes(after), bytes(before));
    return CUPAT_SUCCESS;
}
#pragma nv_diag_default 1444
#pragma GCC diagnostic pop

cupat_status exp_banks(Run &X)
{
    Bufs b;
    unsigned *out = nullptr;
    const size_t outn = (size_t)X.sms * 4 * 256;
    unsigned *host = (unsigned *)malloc(outn * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&out, outn * 4), "cudaMalloc");
    static const int strides[] = {1, 2, 4, 8, 16, 32, 33};
    char name[48];
    for (int k = 0; k < 7 && !s; k++) {
        snprintf(name, sizeof name, "4-byte words, stride %d", strides[k]);
        s = bank_row<B_STRIDE>(X, out, host, strides[k], name, 4);
    }
    if (!s) s = bank_row<B_BROADCAST>(X, out, host, 0, "broadcast: every lane one word", 4);
    if (!s) s = bank_row<B_MULTICAST>(X, out, host, 4, "multicast: 4 lanes a word", 4);
    if (!s) s = bank_row<B_DOUBLE>(X, out, host, 1, "8-byte words, stride 1", 8);
    if (!s) s = bank_row<B_DOUBLE>(X, out, host, 2, "8-byte words, stride 2", 8);
    if (!s) s = bank_config_row(X, out, host);
    free(host);
    return s;
}

// ---- constant ---------------------------------------------------------------------------------

__constant__ unsigned c_data[4096];

__global__ void __launch_bounds__(256) k_const(int distinct, int iters, unsigned *out)
{
    const int lane = threadIdx.x & 31, base = (lane % distinct) * 33;
    unsigned acc = 0;
    for (int k = 0; k < iters; k++) acc += c_data[base + (k & 3) * 1024];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

cupat_status exp_constant(Run &X)
{
    static unsigned h[4096];
    for (int i = 0; i < 4096; i++) h[i] = (unsigned)i;
    CK(cudaMemcpyToSymbolAsync(c_data, h, sizeof h, 0, cudaMemcpyHostToDevice, X.s));
    CK(cudaStreamSynchronize(X.s));
    const int blocks = X.sms * 4, iters = 4096;
    const size_t outn = (size_t)blocks * 256;
    Bufs b;
    unsigned *out = nullptr, *host = (unsigned *)malloc(outn * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&out, outn * 4), "cudaMalloc");
    static const int distinct[] = {1, 2, 8, 32};
    for (int k = 0; k < 4 && !s; k++) {
        const int d = distinct[k];
        lab_mem_row *r = add(X, "%d distinct address%s a warp", d, d > 1 ? "es" : "");
        s = timed(X.ctx, X.reps, X.t, [&]() -> cupat_status {
            k_const<<<blocks, 256, 0, X.s>>>(d, iters, out);
            return LAUNCHED("k_const");
        });
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, host, out, outn * 4), "cudaMemcpyAsync");
        if (s) break;
        r->ms = median(X.t, X.reps);
        r->value = (double)outn * iters / (r->ms * 1e-3) * 1e-9;
        r->ok = 1;
        for (size_t i = 0; i < outn && r->ok; i++) {
            const unsigned base = (unsigned)(((i & 31) % d) * 33);
            unsigned e = 0;
            for (int j = 0; j < 4; j++) e += (base + j * 1024) * (iters / 4);
            r->ok = host[i] == e;
        }
        snprintf(r->note, sizeof r->note, "the constant cache serves one address a cycle: %d serialized", d);
    }
    free(host);
    return s;
}

// ---- local memory ----------------------------------------------------------------------------------

// DYN: the array is indexed by values read at run time, so it cannot live in
// registers (registers are not addressable): local memory. Otherwise every
// index is a compile-time constant after unrolling: registers.
template <bool DYN> __global__ void __launch_bounds__(256) k_local(const int *idx, int iters, unsigned *out)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned a[32];
#pragma unroll
    for (int j = 0; j < 32; j++) a[j] = (unsigned)j * t;
    unsigned s = 0;
    if (DYN) {
        for (int k = 0; k < iters; k++) s += a[idx[k & 31]];
    } else {
        for (int k = 0; k < iters; k += 32)
#pragma unroll
            for (int j = 0; j < 32; j++) s += a[j];
    }
    out[t] = s;
}

template <bool DYN> cupat_status local_row(Run &X, const int *idx, unsigned *out, unsigned *host, int blocks)
{
    const int iters = 1024;
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k_local<DYN>));
    lab_mem_row *r = add(X, DYN ? "a[idx[k]]: local memory" : "a[k], unrolled: registers");
    CUPAT_TRY(time_row(X, r, (double)blocks * 256 * iters * 4, [&]() -> cupat_status {
        k_local<DYN><<<blocks, 256, 0, X.s>>>(idx, iters, out);
        return LAUNCHED("k_local");
    }));
    CK(copy(X.s, host, out, (size_t)blocks * 256 * 4));
    r->ok = 1;
    for (unsigned t = 0; t < (unsigned)blocks * 256 && r->ok; t++) r->ok = host[t] == 496u * t * (unsigned)(iters / 32);
    snprintf(r->note, sizeof r->note, "%d registers, %zu bytes of local memory a thread (cudaFuncGetAttributes)", fa.numRegs,
             fa.localSizeBytes);
    return CUPAT_SUCCESS;
}

cupat_status exp_local(Run &X)
{
    const int blocks = X.sms * 8;
    static int h[32];
    for (int i = 0; i < 32; i++) h[i] = i;
    Bufs b;
    int *idx = nullptr;
    unsigned *out = nullptr, *host = (unsigned *)malloc((size_t)blocks * 256 * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&idx, sizeof h), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&out, (size_t)blocks * 256 * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, copy(X.s, idx, h, sizeof h), "cudaMemcpyAsync");
    if (!s) s = local_row<false>(X, idx, out, host, blocks);
    if (!s) s = local_row<true>(X, idx, out, host, blocks);
    free(host);
    return s;
}

// ---- texture ------------------------------------------------------------------------------------

__global__ void k_tex1d(cudaTextureObject_t t, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * tex1Dfetch<float>(t, i);
}

__global__ void k_ld1d(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

__global__ void k_tex2d(cudaTextureObject_t t, float *out)
{
    // Halfway between texels x and x + 1 of row y (unnormalized, centres at + 0.5).
    const int x = threadIdx.x, y = threadIdx.y;
    out[y * 3 + x] = tex2D<float>(t, (float)x + 1.0f, (float)y + 0.5f);
}

cupat_status exp_texture(Run &X)
{
    const int n = 1 << 24;
    Bufs b;
    float *in = nullptr, *out = nullptr, *host = (float *)malloc((size_t)n * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&in, (size_t)n * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&out, (size_t)n * 4), "cudaMalloc");
    if (!s) {
        k_ones<<<X.sms * 8, 256, 0, X.s>>>(in, n);
        s = LAUNCHED("k_ones");
    }
    cudaTextureObject_t t1 = 0, t2 = 0;
    cudaArray_t arr = nullptr;
    if (!s) {
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeLinear;
        rd.res.linear.devPtr = in;
        rd.res.linear.desc = cudaCreateChannelDesc<float>();
        rd.res.linear.sizeInBytes = (size_t)n * 4;
        cudaTextureDesc td = {};
        td.readMode = cudaReadModeElementType;
        s = cupat__cuda(X.ctx, cudaCreateTextureObject(&t1, &rd, &td, nullptr), "cudaCreateTextureObject");
    }
    for (int k = 0; k < 2 && !s; k++) {
        lab_mem_row *r = add(X, k ? "plain loads" : "tex1Dfetch (texture object, linear memory)");
        s = time_row(X, r, 2.0 * n * 4, [&]() -> cupat_status {
            if (k) k_ld1d<<<n / 256, 256, 0, X.s>>>(in, out, n);
            else k_tex1d<<<n / 256, 256, 0, X.s>>>(t1, out, n);
            return LAUNCHED("k_tex");
        });
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, host, out, (size_t)n * 4), "cudaMemcpyAsync");
        if (s) break;
        r->ok = 1;
        for (int i = 0; i < n && r->ok; i++) r->ok = host[i] == 2.0f;
        snprintf(r->note, sizeof r->note, "out = 2 x in, %d floats", n);
    }
    // A 4 x 3 CUDA array with linear filtering: the half-texel samples are averages.
    if (!s) {
        float v[12];
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 4; x++) v[y * 4 + x] = (float)(x * x + 10 * y);
        cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
        s = cupat__cuda(X.ctx, cudaMallocArray(&arr, &cd, 4, 3), "cudaMallocArray");
        if (!s)
            s = cupat__cuda(X.ctx, cudaMemcpy2DToArrayAsync(arr, 0, 0, v, 16, 16, 3, cudaMemcpyHostToDevice, X.s),
                            "cudaMemcpy2DToArrayAsync");
        if (!s) s = cupat__cuda(X.ctx, cudaStreamSynchronize(X.s), "cudaStreamSynchronize");
        if (!s) {
            cudaResourceDesc rd = {};
            rd.resType = cudaResourceTypeArray;
            rd.res.array.array = arr;
            cudaTextureDesc td = {};
            td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
            td.filterMode = cudaFilterModeLinear;
            td.readMode = cudaReadModeElementType;
            s = cupat__cuda(X.ctx, cudaCreateTextureObject(&t2, &rd, &td, nullptr), "cudaCreateTextureObject");
        }
        float got[9] = {0};
        if (!s) {
            k_tex2d<<<1, dim3(3, 3), 0, X.s>>>(t2, out);
            s = LAUNCHED("k_tex2d");
        }
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, got, out, sizeof got), "cudaMemcpyAsync");
        if (!s) {
            lab_mem_row *r = add(X, "tex2D linear filter, half-texel samples");
            r->ok = 1;
            double worst = 0;
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 3; x++) {
                    const double e = 0.5 * (v[y * 4 + x] + v[y * 4 + x + 1]);
                    const double tol = fabs((double)v[y * 4 + x + 1] - v[y * 4 + x]) / 256.0 + 1e-6; // 8-bit weights
                    const double d = fabs(got[y * 3 + x] - e);
                    worst = d > worst ? d : worst;
                    r->ok &= d <= tol;
                }
            r->value = worst;
            snprintf(r->note, sizeof r->note, "texel x = x^2 + 10 y; largest distance from the average %.3g (weights have 8 bits)",
                     worst);
        }
    }
    if (t1) cudaDestroyTextureObject(t1);
    if (t2) cudaDestroyTextureObject(t2);
    if (arr) cudaFreeArray(arr);
    free(host);
    return s;
}

// ---- fence litmus test ----------------------------------------------------------------------------

// Message passing: even blocks write data[slot] = k then flag[slot] = k;
// odd blocks read flag then data. Seeing flag k with data older than k is a
// violation of the order the writer meant. Every access is volatile (the
// compiler keeps each one, in program order, and reads memory each time
// instead of a register or L1), so only the hardware can reorder them.
// FENCE puts __threadfence() between the writer's data and flag stores and
// between the reader's flag and data loads: the fence pair that orders them
// (PTX: a fence on each side of a relaxed flag store / load makes the data
// store visible before the flag); with both fences a violation is not
// allowed. The 2 x SMs blocks of 256 threads are all resident at once, so
// each reader overlaps its writer; the loops are bounded and nobody waits.
template <bool FENCE> __global__ void __launch_bounds__(256) k_mp(volatile int *data, volatile int *flag, int iters, unsigned *viol)
{
    const int pair = blockIdx.x / 2, slot = pair * blockDim.x + threadIdx.x;
    if (blockIdx.x % 2 == 0) {
        for (int k = 1; k <= iters; k++) {
            data[slot] = k;
            if (FENCE) __threadfence();
            flag[slot] = k;
        }
    } else {
        unsigned v = 0;
        for (int k = 0; k < iters; k++) {
            const int f = flag[slot];
            if (FENCE) __threadfence();
            const int d = data[slot];
            v += d < f;
        }
        viol[slot] = v;
    }
}

cupat_status exp_fence(Run &X)
{
    const int pairs = X.sms, iters = 1 << 14;
    const size_t slots = (size_t)pairs * 256;
    Bufs b;
    int *data = nullptr, *flag = nullptr;
    unsigned *viol = nullptr, *host = (unsigned *)malloc(slots * 4);
    if (!host) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    // data and flag in different allocations: different lines and partitions
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&data, slots * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&flag, slots * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&viol, slots * 4), "cudaMalloc");
    for (int k = 0; k < 2 && !s; k++) {
        unsigned long long total = 0;
        for (int rep = 0; rep < X.reps && !s; rep++) {
            // All on the lab's stream: the counts read back are this launch's.
            s = cupat__cuda(X.ctx, fill(X.s, data, 0, slots * 4), "cudaMemsetAsync");
            if (!s) s = cupat__cuda(X.ctx, fill(X.s, flag, 0, slots * 4), "cudaMemsetAsync");
            if (!s) s = cupat__cuda(X.ctx, fill(X.s, viol, 0xFF, slots * 4), "cudaMemsetAsync"); // every reader overwrites
            if (s) break;
            if (k) k_mp<true><<<2 * pairs, 256, 0, X.s>>>(data, flag, iters, viol);
            else k_mp<false><<<2 * pairs, 256, 0, X.s>>>(data, flag, iters, viol);
            s = LAUNCHED("k_mp");
            if (!s) s = cupat__cuda(X.ctx, copy(X.s, host, viol, slots * 4), "cudaMemcpyAsync");
            for (size_t i = 0; i < slots && !s; i++) {
                if (host[i] > (unsigned)iters)
                    s = cupat__fail(X.ctx, CUPAT_ERROR_INTERNAL, "lab memory: fence: slot %zu counted %u violations in %d reads",
                                    i, host[i], iters);
                total += host[i];
            }
        }
        if (s) break;
        lab_mem_row *r = add(X, k ? "__threadfence() both sides" : "no fence");
        r->value = (double)total;
        r->ok = k ? total == 0 : -1; // with the fences no violation is allowed; without, it is counted
        snprintf(r->note, sizeof r->note, "%llu violations in %.3g reads (%d launches of %d pairs x 256)", total,
                 (double)X.reps * slots * iters, X.reps, pairs);
    }
    free(host);
    return s;
}

// ---- volatile ---------------------------------------------------------------------------------------

// One block of two warps, so the writer and the poller are resident together
// by construction (two blocks need not be: a poller whose writer block is
// never scheduled would wait in vain). Warp 1 waits `delay` cycles, then
// stores the flag; thread 0 of warp 0 polls it at most max_polls times. The
// plain load may be hoisted out of the loop (nothing in the loop writes
// *flag, so the compiler may read it once); the volatile load is issued on
// every iteration and cannot be. result[0] is the poll count, result[1] the
// flag as the poller last read it.
template <bool VOL> __global__ void __launch_bounds__(64) k_poll(int *flag, int max_polls, long long delay, int *result)
{
    if (threadIdx.x == 32) {
        const long long t0 = clock64();
        while (clock64() - t0 < delay) {} // bounded: ~10 microseconds
        *(volatile int *)flag = 1;
        __threadfence();
    } else if (threadIdx.x == 0) {
        int polls = 0, seen = 0;
        if (VOL) {
            volatile int *f = flag;
            while (polls < max_polls && (seen = *f) == 0) polls++;
        } else {
            while (polls < max_polls && (seen = *flag) == 0) polls++; // the load may be hoisted out of the loop
        }
        result[0] = polls;
        result[1] = seen;
    }
}

cupat_status exp_volatile(Run &X)
{
    const int max_polls = 1 << 22;
    const long long delay = 20000;
    Bufs b;
    int *flag = nullptr, *res = nullptr;
    CK(b.alloc((void **)&flag, 4));
    CK(b.alloc((void **)&res, 8));
    for (int k = 0; k < 2; k++) {
        CK(fill(X.s, flag, 0, 4));
        CK(fill(X.s, res, 0xFF, 8)); // -1: not written
        if (k) k_poll<true><<<1, 64, 0, X.s>>>(flag, max_polls, delay, res);
        else k_poll<false><<<1, 64, 0, X.s>>>(flag, max_polls, delay, res);
        CUPAT_TRY(LAUNCHED("k_poll"));
        int got[2] = {-1, -1}, final_flag = -1;
        CK(copy(X.s, got, res, 8));
        CK(copy(X.s, &final_flag, flag, 4));
        if (got[0] < 0 || got[0] > max_polls || final_flag != 1)
            return cupat__fail(X.ctx, CUPAT_ERROR_INTERNAL, "lab memory: volatile: polls %d, flag %d after the kernel", got[0],
                               final_flag);
        lab_mem_row *r = add(X, k ? "volatile int *flag" : "int *flag (plain)");
        r->value = got[0];
        r->ok = k ? got[0] < max_polls && got[1] == 1 : -1;
        if (got[0] < max_polls)
            snprintf(r->note, sizeof r->note, "saw the other warp's store after %d polls (it waits %lld cycles)", got[0], delay);
        else
            snprintf(r->note, sizeof r->note, "never saw the flag in %d polls, though the writer set it: %s", max_polls,
                     k ? "volatile failed" : "the load was hoisted out of the loop");
    }
    return CUPAT_SUCCESS;
}

// ---- restrict (the Guide's 10.2.6 example) --------------------------------------------------------

#define GUIDE_FOO(NAME, RQ)                                                                                            \
    __global__ void NAME(const float *RQ a, const float *RQ b, float *RQ c, int n)                                     \
    {                                                                                                                  \
        const int i = blockIdx.x * blockDim.x + threadIdx.x;                                                           \
        if (i >= n) return;                                                                                            \
        a += 2 * i, b += i, c += 6 * i;                                                                                \
        c[0] = a[0] * b[0];                                                                                            \
        c[1] = a[0] * b[0];                                                                                            \
        c[2] = a[0] * b[0] * a[1];                                                                                     \
        c[3] = a[0] * a[1];                                                                                            \
        c[4] = a[0] * b[0];                                                                                            \
        c[5] = b[0];                                                                                                   \
    }
GUIDE_FOO(k_foo, )
GUIDE_FOO(k_foo_restrict, __restrict__)

cupat_status exp_restrict(Run &X)
{
    const int n = 1 << 22;
    Bufs b;
    float *a = nullptr, *bb = nullptr, *c = nullptr, *hc = (float *)malloc((size_t)n * 24);
    if (!hc) return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&a, (size_t)n * 8), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&bb, (size_t)n * 4), "cudaMalloc");
    if (!s) s = cupat__cuda(X.ctx, b.alloc((void **)&c, (size_t)n * 24), "cudaMalloc");
    if (!s) {
        k_ones<<<X.sms * 8, 256, 0, X.s>>>(a, (size_t)n * 2);
        k_ones<<<X.sms * 8, 256, 0, X.s>>>(bb, (size_t)n);
        s = LAUNCHED("k_ones");
    }
    for (int k = 0; k < 2 && !s; k++) {
        cudaFuncAttributes fa;
        s = cupat__cuda(X.ctx, cudaFuncGetAttributes(&fa, k ? k_foo_restrict : k_foo), "cudaFuncGetAttributes");
        if (s) break;
        lab_mem_row *r = add(X, k ? "const float *__restrict__ a, b; float *__restrict__ c" : "plain pointers");
        s = time_row(X, r, (double)n * (8 + 4 + 24), [&]() -> cupat_status {
            if (k) k_foo_restrict<<<n / 256, 256, 0, X.s>>>(a, bb, c, n);
            else k_foo<<<n / 256, 256, 0, X.s>>>(a, bb, c, n);
            return LAUNCHED("k_foo");
        });
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, hc, c, (size_t)n * 24), "cudaMemcpyAsync");
        if (s) break;
        r->ok = 1;
        for (size_t i = 0; i < (size_t)n * 6 && r->ok; i++) r->ok = hc[i] == 1.0f;
        snprintf(r->note, sizeof r->note, "%d registers a thread; without __restrict__ every store to c may change a or b, "
                 "so a[0] and b[0] are loaded again", fa.numRegs);
    }
    free(hc);
    return s;
}

// ---- unified memory ---------------------------------------------------------------------------------

cupat_status exp_um(Run &X)
{
    size_t fr = 0, tot = 0;
    CK(cudaMemGetInfo(&fr, &tot));
    size_t bytes = (size_t)256 << 20;
    if (bytes > fr / 4) bytes = fr / 4 & ~(size_t)4095; // never more than a quarter of what is free
    const size_t n = bytes / 4;
    unsigned *m = nullptr, *dsum = nullptr;
    Bufs b;
    CK(cudaMallocManaged((void **)&m, bytes));
    int dev = 0;
    cudaGetDevice(&dev);
    const cudaMemLocation here = {cudaMemLocationTypeDevice, dev};
    cupat_status s = cupat__cuda(X.ctx, b.alloc((void **)&dsum, 4), "cudaMalloc");
    const unsigned expect = (unsigned)n * 0x01010101u;
    // Rows: 0 on fault, 1 prefetched, 2 read-mostly after a host write, 3 resident.
    static const char *const names[4] = {"host-written, kernel faults pages over", "cudaMemPrefetchAsync, then the kernel",
                                         "cudaMemAdviseSetReadMostly, host-written", "resident on the device"};
    for (int k = 0; k < 4 && !s; k++) {
        if (k == 2) s = cupat__cuda(X.ctx, cudaMemAdvise(m, bytes, cudaMemAdviseSetReadMostly, here), "cudaMemAdvise");
        if (k == 3 && !s) { // resident: moved over once, outside the timing
            s = cupat__cuda(X.ctx, cudaMemAdvise(m, bytes, cudaMemAdviseUnsetReadMostly, here), "cudaMemAdvise");
            memset(m, 1, bytes);
            if (!s) s = cupat__cuda(X.ctx, cudaMemPrefetchAsync(m, bytes, here, 0, X.s), "cudaMemPrefetchAsync");
            if (!s) s = cupat__cuda(X.ctx, cudaStreamSynchronize(X.s), "cudaStreamSynchronize");
        }
        lab_mem_row *r = add(X, "%s", names[k]);
        double prefetch_ms = 0;
        for (int rep = 0; rep < X.reps && !s; rep++) {
            if (k != 3) memset(m, 1, bytes); // the CPU writes: the pages move to the host
            cudaEvent_t e0, e1, e2;
            s = cupat__cuda(X.ctx, cudaEventCreate(&e0), "cudaEventCreate");
            if (s) break;
            cudaEventCreate(&e1);
            cudaEventCreate(&e2);
            cudaEventRecord(e0, X.s);
            if (k == 1) s = cupat__cuda(X.ctx, cudaMemPrefetchAsync(m, bytes, here, 0, X.s), "cudaMemPrefetchAsync");
            cudaEventRecord(e1, X.s);
            if (!s) s = sum_u32(X, m, n, dsum);
            cudaEventRecord(e2, X.s);
            if (!s) s = cupat__cuda(X.ctx, cudaEventSynchronize(e2), "cudaEventSynchronize");
            float a = 0, c = 0;
            if (!s) cudaEventElapsedTime(&a, e0, e1), cudaEventElapsedTime(&c, e1, e2);
            X.t[rep] = c;
            prefetch_ms += a;
            cudaEventDestroy(e0), cudaEventDestroy(e1), cudaEventDestroy(e2);
        }
        unsigned got = 0;
        if (!s) s = cupat__cuda(X.ctx, copy(X.s, &got, dsum, 4), "cudaMemcpyAsync");
        if (s) break;
        r->ms = median(X.t, X.reps);
        r->value = (double)bytes / (r->ms * 1e-3) * 1e-9;
        r->ok = got == expect;
        snprintf(r->note, sizeof r->note, "%zu MiB; kernel time%s", bytes >> 20,
                 k == 1 ? "" : k == 3 ? " (no migration)" : " includes the page faults");
        if (k == 1)
            snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note), "; the prefetch took %.3f ms more",
                     prefetch_ms / X.reps);
    }
    cudaFree(m);
    return s;
}

} // namespace

cupat_status cupat_memlab::sum_u32(Run &X, const unsigned *p, size_t n, unsigned *dsum)
{
    CK(fill(X.s, dsum, 0, 4));
    k_sum_u32<<<X.sms * 8, 256, 0, X.s>>>(p, n, dsum);
    return LAUNCHED("k_sum_u32");
}

extern "C" cupat_status cupat__lab_mem_run(cupat_ctx *ctx, int e, int reps, const lab_mem_opts *opts,
                                           lab_mem_row *rows, int *nrows)
{
    float *t = (float *)malloc((size_t)reps * sizeof *t);
    if (!t) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab memory: out of host memory");
    Run X = {{ctx, reps, rows, nrows, t, ctx->stream}, ctx->sm_count > 0 ? ctx->sm_count : 1, *opts};
    cudaGetLastError();
    cupat_status s;
    switch (e) {
    case LAB_MEM_CACHE: s = exp_cache(X); break;
    case LAB_MEM_STRIDE: s = exp_stride(X); break;
    case LAB_MEM_ALIGN: s = exp_align(X); break;
    case LAB_MEM_PITCH: s = exp_pitch(X); break;
    case LAB_MEM_SYMBOLS: s = exp_symbols(X); break;
    case LAB_MEM_UVA: s = exp_uva(X); break;
    case LAB_MEM_TRANSFERS: s = exp_transfers(X); break;
    case LAB_MEM_INFLIGHT: s = exp_inflight(X); break;
    case LAB_MEM_CARVEOUT: s = exp_carveout(X); break;
    case LAB_MEM_BANKS: s = exp_banks(X); break;
    case LAB_MEM_CONSTANT: s = exp_constant(X); break;
    case LAB_MEM_LOCAL: s = exp_local(X); break;
    case LAB_MEM_TEXTURE: s = exp_texture(X); break;
    case LAB_MEM_FENCE: s = exp_fence(X); break;
    case LAB_MEM_VOLATILE: s = exp_volatile(X); break;
    case LAB_MEM_RESTRICT: s = exp_restrict(X); break;
    case LAB_MEM_UM: s = exp_um(X); break;
    case LAB_MEM_SEGMENT: s = exp_segment(X); break;
    case LAB_MEM_DEBUG: s = exp_debug(X); break;
    case LAB_MEM_OVERSUB: s = exp_oversub(X); break;
    case LAB_MEM_CARVE: s = exp_carve(X); break;
    case LAB_MEM_LATENCY: s = exp_latency(X); break;
    case LAB_MEM_CACHESIZE: s = exp_cachesize(X); break;
    case LAB_MEM_SPLIT: s = exp_split(X); break;
    default: s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab memory: experiment = %d", e);
    }
    free(t);
    return s;
}
