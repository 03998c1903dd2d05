/* SPDX-License-Identifier: Apache-2.0 */
/* multi_model.h — the multi-GPU lab's cost model (`cupat lab multi`, table
 * 5): what the stencil, the all-reduce and the sort should take on P GPUs,
 * from figures measured on this machine's GPUs (one or two of them) and two
 * assumed ones for the network between nodes. Pure arithmetic, no MPI or
 * CUDA, so a reader (and tests/test_lab_multi_model.c) can check every line:
 *
 *   link(P)      P <= G (one node, G GPUs on one switch): latency lat, one
 *                direction bw, both measured; P > G: the node boundary
 *                crosses the network, net_lat / net_bw (assumed).
 *   stencil      a slab of `own` planes of nx x ny points; one step:
 *                  compute   t_c = o + own x t_plane  (t_plane, o: a line
 *                            through two measured 1-rank runs of different
 *                            slab depths; o is the per-step overhead)
 *                  exchange  t_x = lat + k x plane_bytes / bw, k = the planes
 *                            that leave through this GPU's links at once (2
 *                            with two neighbours in a node, 1 with one);
 *                            P > G: the slower of that and one plane over the
 *                            network (a node's edge rank)
 *                  step      t = o + 2 t_plane + max((own - 2) t_plane, t_x)
 *                            (the outer planes first, then the interior
 *                            hides the exchange: hidden when t_x <= interior)
 *                weak: efficiency t_c(own) / t; strong: speedup t_c(all
 *                planes) / t(P), efficiency speedup / P.
 *   allreduce    ring: t = 2 (P - 1) / P x bytes / busbw + 2 (P - 1) x lat,
 *                busbw and lat fitted to a measured all-reduce (largest and
 *                smallest size); P > G: busbw no more than net_bw, lat the
 *                network's.
 *   sort         n keys of key_bytes; local sort t1 x (n / P) / n (linear in
 *                the keys); exchange (P - 1) / P of a rank's keys leave it:
 *                (P - 1) x lat + that / bw (P > G: the part for other nodes
 *                over the network, the rest over the switch, the slower
 *                of the two); merge of the P runs that arrive: ceil(log2 P)
 *                passes, each reading and writing a rank's keys at the
 *                device's copy rate.
 * Every time in ms, bandwidths in GB/s (1e9 bytes/s), latencies in us. */
#ifndef CUPAT_LAB_MULTI_MODEL_H
#define CUPAT_LAB_MULTI_MODEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_multi_model_in {
    int gpus_per_node;      /* G: GPUs on one switch (8: HGX H100 / H200)              */
    double lat_us, bw_gbs;  /* GPU to GPU inside a node, measured: latency, one way  */
    double net_lat_us, net_bw_gbs; /* between nodes, a GPU's NIC: ASSUMED (options)   */
    double copy_gbs;        /* device copy rate, read + write bytes (merge passes)   */
    /* stencil: t_c(own planes) = overhead_ms + own x plane_ms                   */
    size_t nx, ny;          /* points a plane, halo included                         */
    size_t elem_bytes;
    double plane_ms, overhead_ms;
    /* all-reduce, fitted to a measured one                                       */
    double ar_busbw_gbs, ar_lat_us;
    /* sort: one GPU's time for sort_n keys                                       */
    size_t sort_n, key_bytes;
    double sort_ms;
} lab_multi_model_in;

typedef struct lab_multi_stencil_pred {
    double compute_ms;  /* t_c(own) */
    double exchange_ms; /* t_x */
    double step_ms;     /* t */
    int hidden;         /* t_x <= the interior's compute */
} lab_multi_stencil_pred;
lab_multi_stencil_pred lab_multi_model_stencil(const lab_multi_model_in *m, int p, size_t own_planes);

double lab_multi_model_allreduce_ms(const lab_multi_model_in *m, int p, double bytes);

typedef struct lab_multi_sort_pred {
    double local_ms, exchange_ms, merge_ms, total_ms;
} lab_multi_sort_pred;
lab_multi_sort_pred lab_multi_model_sort(const lab_multi_model_in *m, int p, size_t n);

/* t_plane and o through two measured 1-rank step times: t_a for a slab of
 * planes_a own planes, t_b for planes_b (planes_b > planes_a). A negative
 * overhead (noise) is clamped to 0 with t_plane = t_b / planes_b. */
void lab_multi_model_fit_stencil(lab_multi_model_in *m, size_t planes_a, double t_a, size_t planes_b, double t_b);
/* busbw and lat of the ring formula through two measured all-reduces on p
 * ranks: t_small for bytes_small, t_large for bytes_large. */
void lab_multi_model_fit_allreduce(lab_multi_model_in *m, int p, double bytes_small, double t_small,
                                   double bytes_large, double t_large);

#ifdef __cplusplus
}
#endif
#endif
