/* SPDX-License-Identifier: Apache-2.0 */
/* multi_link.c — the link row of the multi-GPU lab: rank 0 alone copies
 * between its device and the next one with cudaMemcpyPeerAsync (the way
 * cuda-samples' p2pBandwidthLatencyTest does: a copy i -> j goes on a
 * stream of device i; both at once: one stream a device, started by one
 * event), peer access enabled where cudaDeviceCanAccessPeer allows it (else
 * the driver stages the copies through the host). The other ranks wait. */
#include "multi/multi.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LAT_BATCH = 100 };

typedef struct link_dev {
    int dev;
    cudaStream_t s;
    cudaEvent_t start, stop;
    void *src, *dst; /* src: what leaves this device, dst: what arrives */
} link_dev;

typedef struct link {
    lab_multi *L;
    link_dev d[2];
    int peer_on[2]; /* peer access this code enabled (disabled at the end) */
} link;

#define LINK_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) return cupat__cuda(K->L->ctx, e_, #call);                           \
    } while (0)

static cupat_status link_open(link *K, int dev0, int dev1, size_t bytes)
{
    const int devs[2] = {dev0, dev1};
    for (int i = 0; i < 2; i++) {
        link_dev *d = &K->d[i];
        d->dev = devs[i];
        LINK_TRY(cudaSetDevice(d->dev));
        LINK_TRY(cudaStreamCreateWithFlags(&d->s, cudaStreamNonBlocking));
        LINK_TRY(cudaEventCreate(&d->start));
        LINK_TRY(cudaEventCreate(&d->stop));
        LINK_TRY(cudaMalloc(&d->src, bytes));
        LINK_TRY(cudaMalloc(&d->dst, bytes));
        LINK_TRY(cudaMemsetAsync(d->src, 0x5a + i, bytes, d->s));
        LINK_TRY(cudaMemsetAsync(d->dst, 0, bytes, d->s));
        LINK_TRY(cudaStreamSynchronize(d->s));
        int can = 0;
        LINK_TRY(cudaDeviceCanAccessPeer(&can, devs[i], devs[1 - i]));
        if (can) {
            cudaError_t e = cudaDeviceEnablePeerAccess(devs[1 - i], 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError(); /* NCCL or an earlier run */
            else if (e != cudaSuccess) return cupat__cuda(K->L->ctx, e, "cudaDeviceEnablePeerAccess");
            else K->peer_on[i] = 1;
        }
    }
    return CUPAT_SUCCESS;
}

static void link_close(link *K)
{
    for (int i = 0; i < 2; i++) {
        link_dev *d = &K->d[i];
        if (cudaSetDevice(d->dev) != cudaSuccess) continue;
        if (d->s) cudaStreamSynchronize(d->s);
        if (K->peer_on[i]) cudaDeviceDisablePeerAccess(K->d[1 - i].dev);
        cudaFree(d->src);
        cudaFree(d->dst);
        if (d->start) cudaEventDestroy(d->start);
        if (d->stop) cudaEventDestroy(d->stop);
        if (d->s) cudaStreamDestroy(d->s);
    }
    (void)cudaGetLastError();
}

/* `batch` copies of `bytes` from device `from` to the other (both == 1:
 * the two directions at once), timed on device `from`'s stream; *ms the
 * whole batch */
static cupat_status link_copy(link *K, int from, int both, size_t bytes, int batch, float *ms)
{
    link_dev *a = &K->d[from], *b = &K->d[1 - from];
    LINK_TRY(cudaSetDevice(a->dev));
    LINK_TRY(cudaEventRecord(a->start, a->s));
    if (both) LINK_TRY(cudaStreamWaitEvent(b->s, a->start, 0));
    for (int k = 0; k < batch; k++) {
        LINK_TRY(cudaMemcpyPeerAsync(b->dst, b->dev, a->src, a->dev, bytes, a->s));
        if (both) LINK_TRY(cudaMemcpyPeerAsync(a->dst, a->dev, b->src, b->dev, bytes, b->s));
    }
    if (both) {
        LINK_TRY(cudaEventRecord(b->stop, b->s)); /* b's stream: recorded on b's device */
        LINK_TRY(cudaStreamWaitEvent(a->s, b->stop, 0));
    }
    LINK_TRY(cudaEventRecord(a->stop, a->s));
    LINK_TRY(cudaEventSynchronize(a->stop));
    LINK_TRY(cudaEventElapsedTime(ms, a->start, a->stop));
    return CUPAT_SUCCESS;
}

static int cmp_float(const void *x, const void *y)
{
    const float a = *(const float *)x, b = *(const float *)y;
    return a < b ? -1 : a > b;
}

/* the median over reps (one untimed call first) of one copy's ms */
static cupat_status link_median(link *K, int from, int both, size_t bytes, int batch, double *ms)
{
    const int reps = K->L->reps;
    float *t = calloc((size_t)reps, sizeof *t), w;
    if (!t) return cupat__fail(K->L->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab multi: out of host memory");
    cupat_status s = link_copy(K, from, both, bytes, batch, &w);
    for (int r = 0; r < reps && !s; r++) s = link_copy(K, from, both, bytes, batch, &t[r]);
    if (!s) {
        qsort(t, (size_t)reps, sizeof *t, cmp_float);
        *ms = (reps % 2 ? t[reps / 2] : 0.5 * ((double)t[reps / 2 - 1] + t[reps / 2])) / batch;
    }
    free(t);
    return s;
}

static cupat_status link_measure(lab_multi *L, lab_multi_link *o)
{
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess) return cupat__cuda(L->ctx, e, "cudaGetDeviceCount");
    if (ndev < 2) {
        snprintf(o->why, sizeof o->why, "one GPU visible to rank 0 (cudaGetDeviceCount = %d): no link to measure", ndev);
        return CUPAT_SUCCESS;
    }
    o->dev0 = cupat_get_device(L->ctx);
    o->dev1 = (o->dev0 + 1) % ndev;
    if ((e = cudaDeviceCanAccessPeer(&o->peer01, o->dev0, o->dev1)) != cudaSuccess ||
        (e = cudaDeviceCanAccessPeer(&o->peer10, o->dev1, o->dev0)) != cudaSuccess)
        return cupat__cuda(L->ctx, e, "cudaDeviceCanAccessPeer");
    const size_t most = L->quick ? (size_t)256 << 20 : (size_t)1 << 30;
    link K = {.L = L};
    cupat_status s = link_open(&K, o->dev0, o->dev1, most);
    /* bandwidth: 1 MiB, 4 MiB, ... `most`; small copies batched to 64 MiB */
    for (size_t b = (size_t)1 << 20; b <= most && !s && o->nbw < LAB_MULTI_MAX_SIZES; b *= 4) {
        const int k = o->nbw++, batch = b >= ((size_t)64 << 20) ? 1 : (int)(((size_t)64 << 20) / b);
        o->bw_bytes[k] = b;
        s = link_median(&K, 0, 0, b, batch, &o->ms01[k]);
        if (!s) s = link_median(&K, 1, 0, b, batch, &o->ms10[k]);
        if (!s) s = link_median(&K, 0, 1, b, batch, &o->msbi[k]);
    }
    /* latency: one copy of a back-to-back batch of LAT_BATCH, 4 B .. 64 KiB */
    o->lat_batch = LAT_BATCH;
    for (size_t b = 4; b <= ((size_t)64 << 10) && !s && o->nlat < LAB_MULTI_MAX_SIZES; b *= 4) {
        const int k = o->nlat++;
        double ms;
        o->lat_bytes[k] = b;
        s = link_median(&K, 0, 0, b, LAT_BATCH, &ms);
        o->us01[k] = ms * 1e3;
        if (!s) s = link_median(&K, 1, 0, b, LAT_BATCH, &ms);
        o->us10[k] = ms * 1e3;
    }
    link_close(&K);
    cudaSetDevice(o->dev0);
    if (!s) o->ran = 1;
    return s;
}

cupat_status lab_multi_run_link(lab_multi *L, lab_multi_link *o)
{
    memset(o, 0, sizeof *o);
    cupat_status s = CUPAT_SUCCESS;
    if (!L->cuda) snprintf(o->why, sizeof o->why, "CPU backend: no GPUs (the link row measures cudaMemcpyPeerAsync)");
    else if (L->rank == 0) s = link_measure(L, o);
    return lab_multi_agree(L, s);
}
