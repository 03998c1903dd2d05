/* SPDX-License-Identifier: Apache-2.0 */
/* registry.c — every pattern's ladder, and the rung a context runs.
 * A new pattern adds its descriptor (defined in its own folder) to `patterns`. */
#include "internal.h"

#include <string.h>

extern const cupat_pattern_desc cupat__pattern_vadd;
extern const cupat_pattern_desc cupat__pattern_saxpy;
extern const cupat_pattern_desc cupat__pattern_matadd;
extern const cupat_pattern_desc cupat__pattern_gray;
extern const cupat_pattern_desc cupat__pattern_blur;
extern const cupat_pattern_desc cupat__pattern_reduce;
extern const cupat_pattern_desc cupat__pattern_dot;
extern const cupat_pattern_desc cupat__pattern_transpose;
extern const cupat_pattern_desc cupat__pattern_stencil1d;
extern const cupat_pattern_desc cupat__pattern_conv2d;
extern const cupat_pattern_desc cupat__pattern_conv2d_sep;
extern const cupat_pattern_desc cupat__pattern_stencil3d;
extern const cupat_pattern_desc cupat__pattern_gemm;
extern const cupat_pattern_desc cupat__pattern_gemv;
extern const cupat_pattern_desc cupat__pattern_gemm_tc;
extern const cupat_pattern_desc cupat__pattern_scan;
extern const cupat_pattern_desc cupat__pattern_segscan;
extern const cupat_pattern_desc cupat__pattern_select;
extern const cupat_pattern_desc cupat__pattern_histogram;
extern const cupat_pattern_desc cupat__pattern_merge;
extern const cupat_pattern_desc cupat__pattern_sort;
extern const cupat_pattern_desc cupat__pattern_segsort;
extern const cupat_pattern_desc cupat__pattern_spmv;
extern const cupat_pattern_desc cupat__pattern_bfs;

static const cupat_pattern_desc *const patterns[] = {
    &cupat__pattern_vadd, &cupat__pattern_saxpy, &cupat__pattern_matadd,
    &cupat__pattern_gray, &cupat__pattern_blur,
    &cupat__pattern_reduce, &cupat__pattern_dot,
    &cupat__pattern_transpose, &cupat__pattern_stencil1d,
    &cupat__pattern_conv2d, &cupat__pattern_conv2d_sep, &cupat__pattern_stencil3d,
    &cupat__pattern_gemm, &cupat__pattern_gemv, &cupat__pattern_gemm_tc,
    &cupat__pattern_scan, &cupat__pattern_segscan, &cupat__pattern_select,
    &cupat__pattern_histogram,
    &cupat__pattern_merge, &cupat__pattern_sort, &cupat__pattern_segsort,
    &cupat__pattern_spmv,
    &cupat__pattern_bfs,
};
#define NPATTERNS (sizeof patterns / sizeof patterns[0])
_Static_assert(NPATTERNS <= CUPAT_MAX_PATTERNS, "raise CUPAT_MAX_PATTERNS");

static const char *const *pattern_names(void)
{
    static const char *names[NPATTERNS];
    for (size_t i = 0; i < NPATTERNS; i++) names[i] = patterns[i]->name;
    return names;
}

static int find_pattern(const char *name)
{
    if (!name) return -1;
    for (size_t i = 0; i < NPATTERNS; i++)
        if (strcmp(patterns[i]->name, name) == 0) return (int)i;
    return -1;
}

cupat_status cupat_patterns(const char *const **names, size_t *count)
{
    if (!names || !count)
        return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_patterns: %s is NULL",
                           !names ? "names" : "count");
    *names = pattern_names();
    *count = NPATTERNS;
    return CUPAT_SUCCESS;
}

static cupat_status unknown_pattern(cupat_ctx *ctx, const char *fn, const char *pattern)
{
    if (!pattern) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: pattern is NULL", fn);
    char known[256] = "";
    for (size_t i = 0; i < NPATTERNS; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, patterns[i]->name, sizeof known - strlen(known) - 1);
    }
    return cupat__fail(ctx, CUPAT_ERROR_NOT_FOUND, "%s: unknown pattern \"%s\" (known: %s)",
                       fn, pattern, known);
}

cupat_status cupat_variants(const char *pattern, const cupat_variant_info **list,
                            size_t *count)
{
    int p = find_pattern(pattern);
    if (p < 0) return unknown_pattern(NULL, "cupat_variants", pattern);
    if (!list || !count)
        return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_variants: %s is NULL",
                           !list ? "list" : "count");
    *list = patterns[p]->variants;
    *count = patterns[p]->count;
    return CUPAT_SUCCESS;
}

/* Technique twins, by name: the CPU rung "openmp_X" is the CPU form of the
 * CUDA rung "X" of the same pattern (reduce and dot: "compensated" and
 * "openmp_compensated"). Pinning either name pins the one of the context's
 * backend, so a rung chosen for its technique works on both (issue 18.7).
 * The rung of backend b that is v's twin, or NULL. */
#define CPU_TWIN_PREFIX "openmp_"
static int twins(const cupat_variant_info *cpu, const cupat_variant_info *gpu)
{
    const size_t np = sizeof CPU_TWIN_PREFIX - 1;
    return cpu->backend == CUPAT_BACKEND_CPU && gpu->backend == CUPAT_BACKEND_CUDA &&
           strncmp(cpu->name, CPU_TWIN_PREFIX, np) == 0 && strcmp(cpu->name + np, gpu->name) == 0;
}

static const cupat_variant_info *technique_twin(const cupat_pattern_desc *d,
                                                const cupat_variant_info *v, cupat_backend b)
{
    for (size_t i = 0; i < d->count; i++) {
        const cupat_variant_info *w = &d->variants[i];
        if (w->backend == b && (b == CUPAT_BACKEND_CPU ? twins(w, v) : twins(v, w))) return w;
    }
    return NULL;
}

/* "serial, openmp, openmp_compensated": the rungs of backend b. */
static void rungs_of(const cupat_pattern_desc *d, cupat_backend b, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < d->count; i++) {
        if (d->variants[i].backend != b) continue;
        strncat(out, out[0] ? ", " : "", len - strlen(out) - 1);
        strncat(out, d->variants[i].name, len - strlen(out) - 1);
    }
}

static const cupat_variant_info *default_rung(const cupat_pattern_desc *d, cupat_backend b);

cupat_status cupat_set_variant(cupat_ctx *ctx, const char *pattern, const char *variant)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_set_variant"));
    int p = find_pattern(pattern);
    if (p < 0) return unknown_pattern(ctx, "cupat_set_variant", pattern);
    if (!variant || strcmp(variant, "default") == 0) {
        ctx->pinned[p] = NULL;
        return CUPAT_SUCCESS;
    }
    const cupat_pattern_desc *d = patterns[p];
    for (size_t i = 0; i < d->count; i++) {
        const cupat_variant_info *v = &d->variants[i];
        if (strcmp(v->name, variant) != 0) continue;
        if (v->backend != ctx->backend) v = technique_twin(d, v, ctx->backend);
        if (!v) {
            /* The default first: a long ladder's list may not fit the message. */
            char here[640];
            const cupat_variant_info *def = default_rung(d, ctx->backend);
            rungs_of(d, ctx->backend, here, sizeof here);
            return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                               "cupat_set_variant: rung \"%s\" of \"%s\" runs on the %s "
                               "backend and has no form on this context's %s backend (its "
                               "default: %s; its rungs: %s)",
                               variant, pattern, cupat_backend_name(d->variants[i].backend),
                               cupat_backend_name(ctx->backend), def ? def->name : "none",
                               here[0] ? here : "none");
        }
        ctx->pinned[p] = v;
        return CUPAT_SUCCESS;
    }
    return cupat__fail(ctx, CUPAT_ERROR_NOT_FOUND,
                       "cupat_set_variant: pattern \"%s\" has no rung \"%s\" "
                       "(cupat bench %s --list shows them)",
                       pattern, variant, pattern);
}

static const cupat_variant_info *default_rung(const cupat_pattern_desc *d, cupat_backend b)
{
    const cupat_variant_info *first = NULL;
    for (size_t i = 0; i < d->count; i++) {
        if (d->variants[i].backend != b) continue;
        if (d->variants[i].is_default) return &d->variants[i];
        if (!first) first = &d->variants[i];
    }
    return first;
}

/* The rung that runs. `fn` names the public call in messages; NULL: a
 * pattern's own entry point, which passes its own (registered) name. */
static cupat_status select_rung(cupat_ctx *ctx, const char *fn, const char *pattern,
                                const cupat_variant_info **v)
{
    int p = find_pattern(pattern);
    if (p < 0 && fn) return unknown_pattern(ctx, fn, pattern);
    if (p < 0)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL,
                           "pattern \"%s\" is not registered (a bug in cupat)",
                           pattern ? pattern : "(null)");
    *v = ctx->pinned[p] ? ctx->pinned[p] : default_rung(patterns[p], ctx->backend);
    if (!*v)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s%spattern \"%s\" has no rung for the %s backend", fn ? fn : "",
                           fn ? ": " : "", pattern, cupat_backend_name(ctx->backend));
    return CUPAT_SUCCESS;
}

cupat_status cupat__select(cupat_ctx *ctx, const char *pattern, const cupat_variant_info **v)
{
    cupat_status s = select_rung(ctx, NULL, pattern, v);
    if (s == CUPAT_SUCCESS) cupat__trace_rung((*v)->name);
    return s;
}

cupat_status cupat_get_variant(const cupat_ctx *ctx, const char *pattern,
                               const cupat_variant_info **info)
{
    if (!ctx)
        return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_get_variant: ctx is NULL");
    if (!info)
        return cupat__fail((cupat_ctx *)ctx, CUPAT_ERROR_NULL_POINTER,
                           "cupat_get_variant: info is NULL");
    return select_rung((cupat_ctx *)ctx, "cupat_get_variant", pattern, info);
}

int cupat__rung_index(const cupat_variant_info *v)
{
    int p = find_pattern(v->pattern);
    return p < 0 ? -1 : (int)(v - patterns[p]->variants);
}

int cupat__pinned(const cupat_ctx *ctx, const char *pattern)
{
    int p = find_pattern(pattern);
    return p >= 0 && ctx->pinned[p] != NULL;
}
