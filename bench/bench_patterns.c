/* bench_patterns.c — which patterns `cupat bench` has cases for. A new
 * pattern adds its bench_<pattern>.c and one line to the table. */
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
/* bench_gemm.c */
cupat_status bench_gemm_cases(bench_run *run, const bench_size *size);
cupat_status bench_gemm_sweep(bench_run *run, const bench_size *size);

/* In the order `cupat bench all` runs them. */
const bench_pattern bench_patterns[] = {
    /* name     cases                sweep (--sweep-blocks) */
    {"vadd", bench_vadd_cases, NULL},
    {"saxpy", bench_saxpy_cases, NULL},
    {"matadd", bench_matadd_cases, bench_matadd_sweep},
    {"gray", bench_gray_cases, NULL},
    {"blur", bench_blur_cases, NULL},
    {"reduce", bench_reduce_cases, NULL},
    {"transpose", bench_transpose_cases, NULL},
    {"stencil1d", bench_stencil1d_cases, NULL},
    {"gemm", bench_gemm_cases, bench_gemm_sweep},
};
const size_t bench_npatterns = sizeof bench_patterns / sizeof bench_patterns[0];

const bench_pattern *bench_find_pattern(const char *name)
{
    for (size_t i = 0; name && i < bench_npatterns; i++)
        if (strcmp(bench_patterns[i].name, name) == 0) return &bench_patterns[i];
    return NULL;
}
