/* SPDX-License-Identifier: Apache-2.0 */
/* test_lab_multi_model.c — the multi-GPU lab's cost model
 * (lab/multi/multi_model.h), pure arithmetic, no MPI or GPU: each formula
 * against numbers worked out by hand here, the exchange hidden and exposed,
 * the node boundary (P > G) switching to the network figures, and the two
 * fits recovering the parameters of data the model itself made. */
#include "multi/multi_model.h"

#include <math.h>
#include <stdio.h>

static int nfail, nchecks;
#define NEAR(got, want, what)                                                                      \
    do {                                                                                           \
        const double g_ = (got), w_ = (want);                                                      \
        nchecks++;                                                                                 \
        if (!(fabs(g_ - w_) <= 1e-9 * fmax(1.0, fabs(w_)))) {                                      \
            nfail++;                                                                               \
            printf("FAIL %s:%d: %s = %.12g, expected %.12g\n", __FILE__, __LINE__, what, g_, w_);  \
        }                                                                                          \
    } while (0)

static lab_multi_model_in base(void)
{
    lab_multi_model_in m = {0};
    m.gpus_per_node = 8;
    m.lat_us = 10;       /* 0.01 ms */
    m.bw_gbs = 100;      /* 1e8 bytes a ms */
    m.net_lat_us = 20;   /* 0.02 ms */
    m.net_bw_gbs = 10;   /* 1e7 bytes a ms */
    m.copy_gbs = 1000;   /* 1e9 bytes a ms */
    m.nx = m.ny = 1000;  /* a plane: 1e6 points, 4e6 bytes */
    m.elem_bytes = 4;
    m.plane_ms = 0.0001;
    m.overhead_ms = 0.05;
    m.ar_busbw_gbs = 50; /* 5e7 bytes a ms */
    m.ar_lat_us = 5;
    m.sort_n = 1000000;
    m.key_bytes = 4;
    m.sort_ms = 10;
    return m;
}

static void test_stencil(void)
{
    lab_multi_model_in m = base();
    /* one GPU: no exchange */
    lab_multi_stencil_pred r = lab_multi_model_stencil(&m, 1, 100);
    NEAR(r.compute_ms, 0.05 + 0.01, "t_c(100)");
    NEAR(r.step_ms, 0.06, "t(1)");
    /* 2 GPUs, 100 planes: one neighbour, t_x = 0.01 + 4e6 / 1e8 = 0.05 ms
     * against an interior of 98 x 0.0001 = 0.0098: exposed */
    r = lab_multi_model_stencil(&m, 2, 100);
    NEAR(r.exchange_ms, 0.05, "t_x(2)");
    NEAR(r.hidden, 0, "hidden(2)");
    NEAR(r.step_ms, 0.05 + 0.0002 + 0.05, "t(2)");
    /* 8 GPUs: two neighbours through one GPU's links: 0.01 + 8e6 / 1e8 */
    r = lab_multi_model_stencil(&m, 8, 100);
    NEAR(r.exchange_ms, 0.09, "t_x(8)");
    /* 64 GPUs: the node's edge rank, one plane over the network:
     * 0.02 + 4e6 / 1e7 = 0.42 ms, slower than the switch's 0.09 */
    r = lab_multi_model_stencil(&m, 64, 100);
    NEAR(r.exchange_ms, 0.42, "t_x(64)");
    /* a fast link: t_x = 0.001 + 8e6 / 1e10 = 0.0018, hidden behind 0.0098 */
    m.bw_gbs = 1e4;
    m.lat_us = 1;
    r = lab_multi_model_stencil(&m, 8, 100);
    NEAR(r.exchange_ms, 0.0018, "t_x fast");
    NEAR(r.hidden, 1, "hidden fast");
    NEAR(r.step_ms, r.compute_ms, "hidden: t = t_c");
    /* ... but not behind a thin slab: 4 planes, interior 0.0002 */
    r = lab_multi_model_stencil(&m, 8, 4);
    NEAR(r.hidden, 0, "hidden thin");
    NEAR(r.step_ms, 0.05 + 0.0002 + 0.0018, "t thin");
    /* one plane: it is its own outer plane, nothing hides the exchange */
    r = lab_multi_model_stencil(&m, 8, 1);
    NEAR(r.step_ms, 0.05 + 0.0001 + 0.0018, "t one plane");
}

static void test_allreduce(void)
{
    lab_multi_model_in m = base();
    /* ring on 8: 2 x 7/8 x 1e6 bytes / 5e7 bytes a ms + 14 x 0.005 ms */
    NEAR(lab_multi_model_allreduce_ms(&m, 8, 1e6), 0.035 + 0.07, "allreduce(8, 1 MB)");
    /* 64: busbw capped at the network's 10 GB/s, the network's latency */
    NEAR(lab_multi_model_allreduce_ms(&m, 64, 1e6), 2.0 * 63 / 64 * 0.1 + 126 * 0.02, "allreduce(64, 1 MB)");
    NEAR(lab_multi_model_allreduce_ms(&m, 1, 1e6), 0, "allreduce(1)");
    /* the fit recovers busbw and latency from two points the ring made */
    lab_multi_model_in f = base();
    const double ts = lab_multi_model_allreduce_ms(&m, 2, 4096), tl = lab_multi_model_allreduce_ms(&m, 2, 1 << 30);
    f.ar_busbw_gbs = f.ar_lat_us = -1;
    lab_multi_model_fit_allreduce(&f, 2, 4096, ts, 1 << 30, tl);
    NEAR(f.ar_busbw_gbs, 50, "fit busbw");
    NEAR(f.ar_lat_us, 5, "fit lat");
}

static void test_sort(void)
{
    lab_multi_model_in m = base();
    lab_multi_sort_pred r = lab_multi_model_sort(&m, 1, 1000000);
    NEAR(r.total_ms, 10, "sort(1)");
    /* 4 GPUs: local 2.5; a rank's 1e6 bytes, 3/4 leave: 3 x 0.01 + 7.5e5 / 1e8;
     * merge: 2 passes x 2e6 bytes / 1e9 bytes a ms */
    r = lab_multi_model_sort(&m, 4, 1000000);
    NEAR(r.local_ms, 2.5, "sort local(4)");
    NEAR(r.exchange_ms, 0.03 + 0.0075, "sort exchange(4)");
    NEAR(r.merge_ms, 0.004, "sort merge(4)");
    NEAR(r.total_ms, 2.5 + 0.0375 + 0.004, "sort total(4)");
    /* 16 GPUs on 8-GPU nodes: 2.5e5 bytes a rank; 7/16 to the node
     * (109375 / 1e8) and 8/16 off it (125000 / 1e7 = 0.0125, the slower);
     * 15 network latencies; merge 4 passes x 5e5 / 1e9 */
    r = lab_multi_model_sort(&m, 16, 1000000);
    NEAR(r.exchange_ms, 15 * 0.02 + 0.0125, "sort exchange(16)");
    NEAR(r.merge_ms, 4 * 5e5 / 1e9, "sort merge(16)");
}

static void test_fit_stencil(void)
{
    lab_multi_model_in m = base();
    lab_multi_model_fit_stencil(&m, 512, 0.05 + 512 * 0.002, 1024, 0.05 + 1024 * 0.002);
    NEAR(m.plane_ms, 0.002, "fit t_plane");
    NEAR(m.overhead_ms, 0.05, "fit overhead");
    /* noise that would make the overhead negative: clamped, t_plane from the larger */
    lab_multi_model_fit_stencil(&m, 512, 1.0, 1024, 2.2);
    NEAR(m.overhead_ms, 0, "fit clamp overhead");
    NEAR(m.plane_ms, 2.2 / 1024, "fit clamp t_plane");
}

int main(void)
{
    test_stencil();
    test_allreduce();
    test_sort();
    test_fit_stencil();
    printf("%s: %d checks, %d failed\n", nfail ? "FAIL" : "ok", nchecks, nfail);
    return nfail ? 1 : 0;
}
