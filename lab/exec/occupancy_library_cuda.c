/* SPDX-License-Identifier: Apache-2.0 */
/* occupancy_library_cuda.c — occ_library_check: every kernel of a file's
 * fatbin containers loaded through the driver API, and the calculator held
 * against cuOccupancyMaxActiveBlocksPerMultiprocessor for each. The driver's
 * entry points come from cudaGetDriverEntryPointByVersion (as
 * src/dist/dist_ipc.c does): nothing links libcuda. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "exec/occupancy_library.h"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct drv {
    PFN_cuModuleLoadData_v2000 load;
    PFN_cuModuleUnload_v2000 unload;
    PFN_cuModuleGetFunctionCount_v12040 count;
    PFN_cuModuleEnumerateFunctions_v12040 enumerate;
    PFN_cuFuncLoad_v12040 func_load;
    PFN_cuFuncGetName_v12030 name;
    PFN_cuFuncGetAttribute_v2020 get;
    PFN_cuFuncSetAttribute_v9000 set;
    PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 occupancy;
    PFN_cuGetErrorName_v6000 error_name;
} drv;

static int entry(const char *sym, unsigned version, void **fn, char *why, size_t why_len)
{
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion(sym, fn, version, cudaEnableDefault, &q);
    if (e == cudaSuccess && q == cudaDriverEntryPointSuccess && *fn) return 0;
    snprintf(why, why_len, "the driver has no %s (CUDA %u.%u): %s", sym, version / 1000, version % 1000 / 10,
             e != cudaSuccess                              ? cudaGetErrorString(e)
             : q == cudaDriverEntryPointVersionNotSufficent ? "the driver is older"
                                                            : "symbol not found");
    cudaGetLastError();
    return -1;
}

static int drv_init(drv *D, char *why, size_t why_len)
{
    const struct {
        const char *sym;
        unsigned version;
        void **fn;
    } t[] = {
        {"cuModuleLoadData", 2000, (void **)&D->load},
        {"cuModuleUnload", 2000, (void **)&D->unload},
        {"cuModuleGetFunctionCount", 12040, (void **)&D->count},
        {"cuModuleEnumerateFunctions", 12040, (void **)&D->enumerate},
        {"cuFuncLoad", 12040, (void **)&D->func_load},
        {"cuFuncGetName", 12030, (void **)&D->name},
        {"cuFuncGetAttribute", 2020, (void **)&D->get},
        {"cuFuncSetAttribute", 9000, (void **)&D->set},
        {"cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, (void **)&D->occupancy},
        {"cuGetErrorName", 6000, (void **)&D->error_name},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (entry(t[i].sym, t[i].version, t[i].fn, why, why_len)) return -1;
    return 0;
}

static const char *err_name(const drv *D, CUresult e)
{
    const char *s = NULL;
    return D->error_name(e, &s) == CUDA_SUCCESS && s ? s : "unknown CUresult";
}

/* Note the first failure or difference of kernel k. */
__attribute__((format(printf, 2, 3))) static void first(occ_lib_kernel *k, const char *fmt, ...)
{
    if (k->first[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->first, sizeof k->first, fmt, ap);
    va_end(ap);
}

/* Named barriers (bar.sync with an ID above 0) limit blocks too: from cc 9.0
 * the driver counts them (cuda_occupancy.h: an SM has 2 a block slot on cc
 * 9.0, 64 on the H100, and a block takes as many as its highest ID + 1; an
 * ID in a register may take all 16). No function attribute gives the count, so
 * it is inferred: the smallest count n for which the driver's answer is
 * min(calculator's, barriers an SM / n) at every configuration tried. 0: none
 * fits; else *lo..*hi are the counts that give the same cap. */
static int barrier_cap(const occ_device *d, const int *ours, const int *theirs, int np, int *lo, int *hi)
{
    if (d->cc_major < 9) return 0;
    const int per_sm = (d->cc_major == 9 || (d->cc_major == 10 && d->cc_minor != 1) || (d->cc_major == 11 && d->cc_minor))
                           ? 2 * d->blocks_per_sm
                           : d->blocks_per_sm;
    for (int n = 2; n <= 16; n++) {
        const int cap = per_sm / n;
        int ok = 1;
        for (int i = 0; i < np && ok; i++) ok = theirs[i] == (ours[i] < cap ? ours[i] : cap);
        if (!ok) continue;
        *lo = n;
        for (*hi = n; *hi < 16 && per_sm / (*hi + 1) == cap; ++*hi) {}
        return cap;
    }
    return 0;
}

/* One kernel: attributes, then the sweep. */
static void check_kernel(const drv *D, CUfunction f, const occ_device *d, occ_lib_kernel *k)
{
    CUresult e;
    if ((e = D->func_load(f)) != CUDA_SUCCESS) {
        k->errors++;
        first(k, "cuFuncLoad: %s", err_name(D, e));
        return;
    }
    const CUfunction_attribute want[] = {CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                         CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                         CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES};
    int *dst[] = {&k->regs, &k->static_smem, &k->max_threads, &k->max_dyn, &k->local_bytes};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if ((e = D->get(dst[i], want[i], f)) != CUDA_SUCCESS) {
            k->errors++;
            first(k, "cuFuncGetAttribute(%d): %s", (int)want[i], err_name(D, e));
            return;
        }
    /* What the calculator does not model: a cluster size fixed at compile
     * time (the driver places such blocks by clusters; the question for them
     * is cuOccupancyMaxActiveClusters). */
    int cw = 0, ch = 0, cd = 0, must = 0;
    D->get(&cw, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f);
    D->get(&ch, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, f);
    D->get(&cd, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, f);
    D->get(&must, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, f);
    if (cw > 0 || must)
        snprintf(k->reason, sizeof k->reason,
                 "cluster size %dx%dx%d%s fixed at compile time: the calculator does not model clusters", cw, ch, cd,
                 must ? " (must be set)" : "");

    /* dynamic shared memory: as loaded, then opted in to the device's limit */
    const int def_max = k->max_dyn;
    const int optin_max = (int)d->smem_per_block_optin - k->static_smem;
    int tries[] = {0, 1024, 16 * 1024, def_max, 100 * 1024, optin_max};
    const size_t ntries = sizeof tries / sizeof tries[0];
    for (size_t i = 1; i < ntries; i++) /* ascending: the opt-in comes once, at the first size that needs it */
        for (size_t j = i; j > 0 && tries[j - 1] > tries[j]; j--) {
            const int x = tries[j];
            tries[j] = tries[j - 1];
            tries[j - 1] = x;
        }
    int opted = 0, last = -1, np = 0, miss = 0;
    int ours[8 * 40], theirs[8 * 40]; /* every configuration compared: sizes x block sizes */
    for (size_t ti = 0; ti < ntries; ti++) {
        const int dyn = tries[ti];
        if (dyn <= last || dyn < 0) continue; /* in order, once each */
        if (dyn > def_max) {
            if (dyn > optin_max) continue;
            if (!opted) {
                if ((e = D->set(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin_max)) != CUDA_SUCCESS) {
                    k->errors++;
                    first(k, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d): %s", optin_max, err_name(D, e));
                    break;
                }
                opted = 1;
                k->max_dyn = optin_max;
            }
        }
        last = dyn;
        for (int t = 32;; t += 32) {
            if (t > k->max_threads) {
                if (t - 32 == k->max_threads || k->max_threads < 1) break;
                t = k->max_threads; /* a limit that is not whole warps: try it too */
            }
            int blocks = -1;
            k->checks++;
            if ((e = D->occupancy(&blocks, f, t, (size_t)dyn)) != CUDA_SUCCESS) {
                if (k->reason[0]) k->explained++; /* e.g. a cluster kernel asked without its cluster */
                else k->errors++;
                first(k, "%d threads, %d B dynamic: cuOccupancyMaxActiveBlocksPerMultiprocessor: %s", t, dyn,
                      err_name(D, e));
            } else {
                occ_kernel q = {t, k->regs, (size_t)k->static_smem + (size_t)dyn};
                occ_result r;
                if (occ_compute(d, &q, &r)) {
                    k->errors++;
                    first(k, "%d threads, %d B dynamic: the calculator: %s", t, dyn, r.why);
                } else {
                    if (np < (int)(sizeof ours / sizeof ours[0])) ours[np] = r.blocks, theirs[np++] = blocks;
                    if (r.blocks != blocks) {
                        miss++;
                        first(k, "%d threads, %d B dynamic: calculator %d blocks, driver %d (calculator's limit: %s)",
                              t, dyn, r.blocks, blocks, r.blocks ? occ_limit_names[r.limiter] : r.why);
                    }
                }
            }
            if (t == k->max_threads) break;
        }
    }
    int lo = 0, hi = 0, cap = 0;
    if (miss && !k->reason[0] && (cap = barrier_cap(d, ours, theirs, np, &lo, &hi)) > 0) {
        char n[24];
        if (hi > lo) snprintf(n, sizeof n, "%d-%d", lo, hi);
        else snprintf(n, sizeof n, "%d", lo);
        snprintf(k->reason, sizeof k->reason,
                 "the driver caps it at %d blocks an SM in all %d configurations: %s named barriers a block "
                 "(bar.sync with an ID > 0), which the calculator does not count",
                 cap, np, n);
    }
    if (k->reason[0]) k->explained += miss;
    else k->differ += miss;
}

static int add_kernel(occ_lib_report *r, size_t *cap)
{
    if (r->nk == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        occ_lib_kernel *g = realloc(r->k, c * sizeof *g);
        if (!g) return -1;
        r->k = g;
        *cap = c;
    }
    memset(&r->k[r->nk], 0, sizeof r->k[0]);
    r->nk++;
    return 0;
}

int occ_library_check(const occ_fatbin *f, int device, const occ_device *d, occ_lib_report *r, char *why,
                      size_t why_len)
{
    memset(r, 0, sizeof *r);
    drv D;
    cudaError_t ce = cudaSetDevice(device);
    if (ce == cudaSuccess) ce = cudaFree(0); /* the primary context, current: the driver calls use it */
    if (ce != cudaSuccess) {
        snprintf(why, why_len, "device %d: %s", device, cudaGetErrorString(ce));
        cudaGetLastError();
        return -1;
    }
    if (drv_init(&D, why, why_len)) return -1;
    r->c = calloc(f->n ? f->n : 1, sizeof *r->c);
    if (!r->c) {
        snprintf(why, why_len, "out of host memory");
        return -1;
    }
    r->nc = f->n;
    size_t cap = 0;
    for (size_t i = 0; i < f->n; i++) {
        occ_lib_container *rc = &r->c[i];
        /* a copy of its own: aligned, and alive while the module is */
        void *img = malloc(f->c[i].size);
        if (!img) {
            snprintf(rc->why, sizeof rc->why, "out of host memory (%zu bytes)", f->c[i].size);
            r->containers_failed++;
            continue;
        }
        memcpy(img, f->section + f->c[i].offset, f->c[i].size);
        CUmodule mod = NULL;
        CUresult e = D.load(&mod, img);
        if (e != CUDA_SUCCESS) {
            rc->foreign = !occ_container_runs_on(&f->c[i], d->cc_major, d->cc_minor);
            snprintf(rc->why, sizeof rc->why, "cuModuleLoadData: %s", err_name(&D, e));
            if (!rc->foreign) r->containers_failed++;
            free(img);
            continue;
        }
        rc->loaded = 1;
        unsigned nf = 0;
        CUfunction *fs = NULL;
        if ((e = D.count(&nf, mod)) != CUDA_SUCCESS ||
            (nf && (!(fs = malloc(nf * sizeof *fs)) || (e = D.enumerate(fs, nf, mod)) != CUDA_SUCCESS))) {
            snprintf(rc->why, sizeof rc->why, "enumerating its kernels: %s",
                     e != CUDA_SUCCESS ? err_name(&D, e) : "out of host memory");
            r->containers_failed++;
            nf = 0;
        }
        rc->kernels = (int)nf;
        for (unsigned j = 0; j < nf; j++) {
            if (add_kernel(r, &cap)) {
                snprintf(rc->why, sizeof rc->why, "out of host memory (%zu kernels)", r->nk);
                r->containers_failed++;
                break;
            }
            occ_lib_kernel *k = &r->k[r->nk - 1];
            const char *nm = NULL;
            k->container = (int)i;
            e = D.name(&nm, fs[j]);
            k->name = strdup(e == CUDA_SUCCESS && nm ? nm : "(no name)");
            check_kernel(&D, fs[j], d, k);
            r->configs += k->checks;
            r->differ += k->differ;
            r->explained += k->explained;
            r->errors += k->errors;
        }
        free(fs);
        if ((e = D.unload(mod)) != CUDA_SUCCESS) {
            snprintf(rc->why, sizeof rc->why, "cuModuleUnload: %s", err_name(&D, e));
            r->containers_failed++;
        }
        free(img);
    }
    return 0;
}

void occ_lib_report_free(occ_lib_report *r)
{
    for (size_t i = 0; i < r->nk; i++) free(r->k[i].name);
    free(r->k);
    free(r->c);
    memset(r, 0, sizeof *r);
}
