/* SPDX-License-Identifier: Apache-2.0 */
/* l2_lab.c — the experiments of `cupat lab l2` as a table, their argument
 * checks, the host models the tests check on the CPU (the words and the
 * expected sums, the Guide's set-aside and hitRatio, the build rule), and
 * the feature-set rows that read the build's fatbins (plain C, no GPU: the
 * ELF and fatbin walker of lab/exec/occupancy_library.c). The kernels and
 * their host halves are in l2.cu and l2_sm90a.cu. */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include "l2/l2.h"

#include "exec/occupancy_library.h"
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The build's libcupat.so (lab/CMakeLists.txt): the CLI and the tests link
 * libcupat statically, so its kernels are read from the shared library the
 * same build made, else from the program itself. */
#ifndef CUPAT_LAB_LIBCUPAT_FILE
#define CUPAT_LAB_LIBCUPAT_FILE ""
#endif

static const lab_exp exps[LAB_L2_NEXP] = {
    [LAB_L2_SETASIDE] = {"setaside",
                         "the L2 and persisting-L2 attributes; cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize) "
                         "asked against cudaDeviceGetLimit granted; the limit put back",
                         "Guide 6.2.3.1 L2 Set-Aside (G15)", "bytes"},
    [LAB_L2_HITRATIO] = {"hitratio",
                         "a region of 1x the set-aside read while 1 GiB streams past: no window, then a persisting "
                         "window with hitRatio 0, 0.25, 0.5, 0.75, 1",
                         "Guide 6.2.3.2 L2 Policy for Persisting Accesses (G16)", "GB/s"},
    [LAB_L2_WINDOW] = {"window",
                       "the region 0.5x, 1x, 2x, 4x the set-aside: no window, hitRatio 1, and hitRatio = set-aside / "
                       "window (the Guide's tuning)",
                       "Guide 6.2.3.1-6.2.3.2 (G15, G16)", "GB/s"},
    [LAB_L2_RESET] = {"reset",
                      "persisting lines after the window is gone: kept, cudaCtxResetPersistingL2Cache, hitProp Normal; "
                      "what stale persisting lines cost normal data; the calls' host cost",
                      "Guide 6.2.3 (reset to normal) (G15, G16)", "GB/s"},
    [LAB_L2_LAUNCH] = {"launch",
                       "the same window as cudaLaunchAttributeAccessPolicyWindow of cudaLaunchKernelEx, beside the "
                       "stream attribute",
                       "Guide 6.2.3.2; cudaLaunchKernelEx (G16, G02)", "GB/s"},
    [LAB_L2_FEATURES] = {"features",
                         "which of the build's files are sm_90a and which portable; an sm_90 kernel and an sm_90a "
                         "(setmaxnreg) kernel run, __CUDA_ARCH_FEAT_SM90_ALL as each sees it",
                         "Guide 6.1.3-6.1.4, 19.1 Feature Availability (G10, G66)", "number"},
};

const lab_exp *lab_l2_exp(int e)
{
    return e >= 0 && e < LAB_L2_NEXP ? &exps[e] : NULL;
}

int lab_l2_find(const char *name)
{
    for (int e = 0; name && e < LAB_L2_NEXP; e++)
        if (!strcmp(exps[e].name, name)) return e;
    return -1;
}

/* ----------------------------------------------------- host models -- */

uint64_t lab_l2_sum_words(uint32_t seed, uint64_t first, uint64_t n)
{
    uint64_t s = 0;
    for (uint64_t w = first; w < first + n; w++) s += lab_l2_word(seed, w);
    return s;
}

uint64_t lab_l2_expect_cyclic(uint32_t seed, uint64_t np, uint64_t reads)
{
    if (!np) return 0;
    const uint64_t q = reads / np, rem = reads % np;
    uint64_t s = 0;
    for (uint64_t j = 0; j < np; j++) /* element j is read q times, once more below rem */
        s += lab_l2_sum_words(seed, 4 * j, 4) * (q + (j < rem));
    return s;
}

size_t lab_l2_guide_setaside(size_t l2_bytes, size_t max_persisting)
{
    const size_t q = l2_bytes / 4 * 3 + l2_bytes % 4 * 3 / 4; /* 3/4 without overflow */
    return q < max_persisting ? q : max_persisting;
}

double lab_l2_tuned_hit_ratio(size_t set_aside, size_t window_bytes)
{
    if (!window_bytes) return 0;
    return set_aside >= window_bytes ? 1.0 : (double)set_aside / (double)window_bytes;
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

int lab_l2_rule_holds(const char *source, int n, const int *arch_specific)
{
    if (!source || !source[0] || n <= 0 || !arch_specific) return -1;
    int spec = 0;
    for (int i = 0; i < n; i++) spec += arch_specific[i] != 0;
    return ends_with(source, "_sm90a.cu") ? spec == n : spec == 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The container's entries' arch-specific flags (the described ones). */
static int flags_of(const occ_container *c, int *as)
{
    const int n = c->nentries < OCC_FATBIN_MAX_ENTRIES ? c->nentries : OCC_FATBIN_MAX_ENTRIES;
    for (int i = 0; i < n; i++) as[i] = c->e[i].arch_specific;
    return n;
}

int lab_l2_build_scan(const char *path, lab_l2_build *b, char *why, size_t why_len)
{
    memset(b, 0, sizeof *b);
    occ_fatbin f;
    if (occ_fatbin_open(path, &f, why, why_len)) return -1;
    size_t used = 0;
    for (size_t i = 0; i < f.n; i++) {
        const occ_container *c = &f.c[i];
        int as[OCC_FATBIN_MAX_ENTRIES];
        const int n = flags_of(c, as);
        int spec = 0;
        for (int k = 0; k < n; k++) spec += as[k];
        b->containers++;
        b->named += c->source[0] != 0;
        if (n && spec == n) b->specific++;
        else if (!spec) b->portable++;
        else b->mixed++;
        if (n && spec == n && c->source[0] && used + 1 < sizeof b->sm90a)
            used += (size_t)snprintf(b->sm90a + used, sizeof b->sm90a - used, "%s%s", used ? ", " : "",
                                     base_name(c->source));
        if (lab_l2_rule_holds(c->source, n, as) == 0 && !b->broken++) {
            char d[96];
            occ_container_describe(c, d, sizeof d);
            snprintf(b->first_broken, sizeof b->first_broken, "%.60s holds %.90s", base_name(c->source), d);
        }
    }
    occ_fatbin_close(&f);
    return 0;
}

int lab_l2_build_find(const char *path, const char *suffix, char *desc, size_t desc_len, int *rule, char *why,
                      size_t why_len)
{
    occ_fatbin f;
    if (occ_fatbin_open(path, &f, why, why_len)) return -1;
    int found = 0;
    for (size_t i = 0; i < f.n && !found; i++) {
        const occ_container *c = &f.c[i];
        if (!c->source[0] || !ends_with(c->source, suffix)) continue;
        int as[OCC_FATBIN_MAX_ENTRIES];
        const int n = flags_of(c, as);
        occ_container_describe(c, desc, desc_len);
        *rule = lab_l2_rule_holds(c->source, n, as);
        found = 1;
    }
    occ_fatbin_close(&f);
    return found;
}

/* ------------------------------------------------ feature-set rows -- */

/* What the build made (no GPU): libcupat's files by target and the rule,
 * then this program's two lab/l2 files. */
static void build_rows(lab_row *rows, int *n)
{
    char path[1024], why[256];
    const char *how = "";
    lab_row *r = lab_row_add(rows, n, "libcupat's fatbins: files built for sm_90a only");
    lab_l2_build b;
    if (occ_library_file(CUPAT_LAB_LIBCUPAT_FILE, path, sizeof path, &how, why, sizeof why) ||
        lab_l2_build_scan(path, &b, why, sizeof why)) {
        r->ok = 0;
        lab_row_note(r, "cannot read the build: %s", why);
    } else {
        r->value = b.specific;
        r->ok = b.named == 0 ? -1 : b.broken == 0;
        lab_row_note(r, "%s (%s): %d containers, %d named; %d portable, %d sm_90a only (%s), %d mixed; ", base_name(path),
                     how, b.containers, b.named, b.portable, b.specific, b.specific ? b.sm90a : "none", b.mixed);
        if (!b.named) lab_row_note(r, "no source names (built without -lineinfo): the rule not judged");
        else if (b.broken) lab_row_note(r, "%d against the *_sm90a.cu rule, first: %s", b.broken, b.first_broken);
        else lab_row_note(r, "every named file as the *_sm90a.cu rule says");
    }
    /* the lab's own two files, in this program (the lab links statically) */
    char self[1024];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    static const struct {
        const char *name, *suffix, *want;
    } files[] = {
        {"this program: lab/l2/l2.cu (the lab's targets)", "/l2/l2.cu", "portable targets only (CMAKE_CUDA_ARCHITECTURES)"},
        {"this program: lab/l2/l2_sm90a.cu (sm_90a rule)", "/l2/l2_sm90a.cu", "an sm_90a cubin only"},
    };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        r = lab_row_add(rows, n, "%s", files[k].name);
        if (len <= 0) {
            r->ok = 0;
            lab_row_note(r, "cannot read /proc/self/exe");
            continue;
        }
        self[len] = 0;
        char desc[96] = "";
        int rule = -1;
        const int got = lab_l2_build_find(self, files[k].suffix, desc, sizeof desc, &rule, why, sizeof why);
        if (got < 0) r->ok = 0, lab_row_note(r, "%s", why);
        else if (!got) r->ok = 0, lab_row_note(r, "no container of %s names the file", base_name(self));
        else {
            r->ok = rule;
            lab_row_note(r, "holds %s; the rule wants %s", desc, files[k].want);
        }
    }
}

/* ------------------------------------------------------------ run -- */

cupat_status lab_l2_run(cupat_ctx *ctx, int e, int reps, lab_row rows[LAB_MAX_ROWS], int *nrows)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab l2: ctx is NULL");
    if (e < 0 || e >= LAB_L2_NEXP)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab l2: experiment = %d (0 to %d)", e, LAB_L2_NEXP - 1);
    if (reps < 1 || reps > 1000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab l2: reps = %d (1 to 1000)", reps);
    if (!rows || !nrows)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab l2: %s is NULL", !rows ? "rows" : "nrows");
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab l2: the experiments need the CUDA backend");
    memset(rows, 0, sizeof(lab_row) * LAB_MAX_ROWS);
    *nrows = 0;
    if (e == LAB_L2_FEATURES) build_rows(rows, nrows);
    return cupat__lab_l2_run(ctx, e, reps, rows, nrows);
}
