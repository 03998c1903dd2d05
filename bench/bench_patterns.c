/* SPDX-License-Identifier: Apache-2.0 */
/* bench_patterns.c — which patterns `cupat bench` has cases for. A new
 * pattern adds its bench_<pattern>.c, one line to the table and one to
 * sizes.c (what --n means for it); test_bench checks that every registered
 * pattern has both. */
#include "harness.h"

#include <string.h>

/* bench_elementwise.c */
cupat_status bench_vadd_cases(bench_run *run, const bench_size *size);
cupat_status bench_saxpy_cases(bench_run *run, const bench_size *size);
cupat_status bench_matadd_cases(bench_run *run, const bench_size *size);
cupat_status bench_matadd_sweep(bench_run *run, const bench_size *size);
cupat_status bench_gray_cases(bench_run *run, const bench_size *size);
cupat_status bench_blur_cases(bench_run *run, const bench_size *size);
/* bench_transpose.c, bench_stencil1d.c */
cupat_status bench_transpose_cases(bench_run *run, const bench_size *size);
cupat_status bench_stencil1d_cases(bench_run *run, const bench_size *size);
/* bench_reduce.c: reduce and dot */
cupat_status bench_reduce_cases(bench_run *run, const bench_size *size);
cupat_status bench_dot_cases(bench_run *run, const bench_size *size);
/* bench_scan.c: scan, segmented scans, stream compaction */
cupat_status bench_scan_cases(bench_run *run, const bench_size *size);
cupat_status bench_segscan_cases(bench_run *run, const bench_size *size);
cupat_status bench_select_cases(bench_run *run, const bench_size *size);
/* bench_sort.c: merge, sort, segmented sort */
cupat_status bench_merge_cases(bench_run *run, const bench_size *size);
cupat_status bench_sort_cases(bench_run *run, const bench_size *size);
cupat_status bench_segsort_cases(bench_run *run, const bench_size *size);
/* bench_bfs.c */
cupat_status bench_bfs_cases(bench_run *run, const bench_size *size);
/* bench_histogram.c */
cupat_status bench_histogram_cases(bench_run *run, const bench_size *size);
/* bench_sparse.c */
cupat_status bench_spmv_cases(bench_run *run, const bench_size *size);
/* bench_conv2d.c: conv2d and its separable form; bench_stencil3d.c */
cupat_status bench_conv2d_cases(bench_run *run, const bench_size *size);
cupat_status bench_conv2d_sep_cases(bench_run *run, const bench_size *size);
cupat_status bench_stencil3d_cases(bench_run *run, const bench_size *size);
/* bench_gemm.c */
cupat_status bench_gemm_cases(bench_run *run, const bench_size *size);
cupat_status bench_gemm_sweep(bench_run *run, const bench_size *size);
cupat_status bench_gemv_cases(bench_run *run, const bench_size *size);
/* bench_gemm_tc.c */
cupat_status bench_gemm_tc_cases(bench_run *run, const bench_size *size);

/* In the order `cupat bench all` runs them. The --quick sizes (`make run`'s
 * tour: about a minute for all of them on an H100, a few on two CPU cores)
 * are --n values: one case each, large enough on the GPU to leave its L2. */
const bench_pattern bench_patterns[] = {
    /* name     cases                sweep (--sweep-blocks)  --quick: GPU, CPU */
    {"vadd", bench_vadd_cases, NULL, "2^24", "2^22"},
    {"saxpy", bench_saxpy_cases, NULL, "2^24", "2^22"},
    {"matadd", bench_matadd_cases, bench_matadd_sweep, "4096x4096", "2048x2048"},
    {"gray", bench_gray_cases, NULL, "3840x2160", "1280x720"},
    {"blur", bench_blur_cases, NULL, "1920x1080", "640x480"},
    {"reduce", bench_reduce_cases, NULL, "2^24", "2^22"},
    {"dot", bench_dot_cases, NULL, "2^24", "2^22"},
    {"scan", bench_scan_cases, NULL, "2^24", "2^22"},
    {"segscan", bench_segscan_cases, NULL, "2^24", "2^22"},
    {"select", bench_select_cases, NULL, "2^24", "2^22"},
    {"histogram", bench_histogram_cases, NULL, "2^24", "2^20"},
    {"merge", bench_merge_cases, NULL, "2^24", "2^20"},
    {"sort", bench_sort_cases, NULL, "2^22", "2^18"},
    {"segsort", bench_segsort_cases, NULL, "2^14", "2^10"},
    {"bfs", bench_bfs_cases, NULL, "2^20", "2^14"},
    {"transpose", bench_transpose_cases, NULL, "4096x4096", "2048x2048"},
    {"stencil1d", bench_stencil1d_cases, NULL, "2^24", "2^22"},
    {"conv2d", bench_conv2d_cases, NULL, "3840x2160", "256x256"},
    {"conv2d_sep", bench_conv2d_sep_cases, NULL, "3840x2160", "256x256"},
    {"stencil3d", bench_stencil3d_cases, NULL, "2^24", "2^18"},
    {"gemm", bench_gemm_cases, bench_gemm_sweep, "2048", "256"},
    {"gemv", bench_gemv_cases, NULL, "8192x8192", "2048x2048"},
    {"gemm_tc", bench_gemm_tc_cases, NULL, "2048", "128"},
    {"spmv", bench_spmv_cases, NULL, "2^20", "2^14"},
};
const size_t bench_npatterns = sizeof bench_patterns / sizeof bench_patterns[0];

const bench_pattern *bench_find_pattern(const char *name)
{
    for (size_t i = 0; name && i < bench_npatterns; i++)
        if (strcmp(bench_patterns[i].name, name) == 0) return &bench_patterns[i];
    return NULL;
}

int bench_quick_size(const bench_run *run, const bench_pattern *p, bench_size *out)
{
    const char *s = run->backend == CUPAT_BACKEND_CUDA ? p->quick_gpu : p->quick_cpu;
    char err[160];
    return s && bench_parse_size(s, out, err, sizeof err) == 0 ? 0 : -1;
}
