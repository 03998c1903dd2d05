/* SPDX-License-Identifier: Apache-2.0 */
/* multi_model.c — the multi-GPU lab's cost model; multi_model.h states it. */
#include "multi/multi_model.h"

#include <math.h>

/* ms to move `bytes` at gbs GB/s */
static double xfer_ms(double bytes, double gbs) { return gbs > 0 ? bytes / (gbs * 1e6) : INFINITY; }

lab_multi_stencil_pred lab_multi_model_stencil(const lab_multi_model_in *m, int p, size_t own)
{
    lab_multi_stencil_pred r;
    const double plane = (double)m->nx * (double)m->ny * (double)m->elem_bytes;
    r.compute_ms = m->overhead_ms + (double)own * m->plane_ms;
    if (p <= 1) {
        r.exchange_ms = 0;
        r.step_ms = r.compute_ms;
        r.hidden = 1;
        return r;
    }
    /* planes leaving through this GPU's links at once: one a neighbour */
    const int k = p > 2 ? 2 : 1;
    r.exchange_ms = m->lat_us / 1e3 + xfer_ms(k * plane, m->bw_gbs);
    if (p > m->gpus_per_node) { /* a node's edge rank: one neighbour over the network */
        const double net = m->net_lat_us / 1e3 + xfer_ms(plane, m->net_bw_gbs);
        if (net > r.exchange_ms) r.exchange_ms = net;
    }
    /* the outer planes first (a slab of one plane has one), then the interior */
    const double outer = (double)(own < 2 ? own : 2) * m->plane_ms;
    const double inner = own > 2 ? (double)(own - 2) * m->plane_ms : 0;
    r.hidden = r.exchange_ms <= inner;
    r.step_ms = m->overhead_ms + outer + (r.hidden ? inner : r.exchange_ms);
    return r;
}

double lab_multi_model_allreduce_ms(const lab_multi_model_in *m, int p, double bytes)
{
    if (p <= 1) return 0;
    double bw = m->ar_busbw_gbs, lat = m->ar_lat_us;
    if (p > m->gpus_per_node) {
        if (m->net_bw_gbs < bw) bw = m->net_bw_gbs;
        if (m->net_lat_us > lat) lat = m->net_lat_us;
    }
    return 2.0 * (p - 1) / p * xfer_ms(bytes, bw) + 2.0 * (p - 1) * lat / 1e3;
}

lab_multi_sort_pred lab_multi_model_sort(const lab_multi_model_in *m, int p, size_t n)
{
    lab_multi_sort_pred r;
    const double mine = (double)n / p * (double)m->key_bytes; /* a rank's bytes */
    r.local_ms = m->sort_ms * ((double)n / p) / (double)m->sort_n;
    r.exchange_ms = r.merge_ms = 0;
    if (p > 1) {
        const int G = m->gpus_per_node;
        if (p <= G) {
            r.exchange_ms = (p - 1) * m->lat_us / 1e3 + xfer_ms((double)(p - 1) / p * mine, m->bw_gbs);
        } else {
            const double in_node = xfer_ms((double)(G - 1) / p * mine, m->bw_gbs);
            const double off_node = xfer_ms((double)(p - G) / p * mine, m->net_bw_gbs);
            r.exchange_ms = (p - 1) * m->net_lat_us / 1e3 + (in_node > off_node ? in_node : off_node);
        }
        r.merge_ms = ceil(log2((double)p)) * xfer_ms(2 * mine, m->copy_gbs);
    }
    r.total_ms = r.local_ms + r.exchange_ms + r.merge_ms;
    return r;
}

void lab_multi_model_fit_stencil(lab_multi_model_in *m, size_t planes_a, double t_a, size_t planes_b, double t_b)
{
    m->plane_ms = (t_b - t_a) / ((double)planes_b - (double)planes_a);
    m->overhead_ms = t_a - (double)planes_a * m->plane_ms;
    if (!(m->overhead_ms >= 0) || !(m->plane_ms > 0)) {
        m->overhead_ms = 0;
        m->plane_ms = t_b / (double)planes_b;
    }
}

void lab_multi_model_fit_allreduce(lab_multi_model_in *m, int p, double bytes_small, double t_small,
                                   double bytes_large, double t_large)
{
    const double f = 2.0 * (p - 1) / p; /* bytes each rank sends, per byte of the array */
    double slope = (t_large - t_small) / (bytes_large - bytes_small); /* ms a byte */
    if (slope > 0) {
        m->ar_busbw_gbs = f / (slope * 1e6);
    } else { /* noise: the large one's own rate, no latency term taken from the slope */
        m->ar_busbw_gbs = f * bytes_large / (t_large * 1e6);
        slope = 0;
    }
    double lat_ms = (t_small - slope * bytes_small) / (2.0 * (p - 1));
    if (!(lat_ms >= 0)) lat_ms = 0;
    m->ar_lat_us = lat_ms * 1e3;
}
