/* test_occupancy.c — the occupancy calculator (lab/exec/occupancy.c).
 *
 * --backend cpu: the books' worked examples give the numbers worked out by
 * hand in occupancy.c (under the book's rule and under the hardware's); and
 * for 5 device presets x 40,000 random kernels (block size, registers, shared
 * memory, opt-in) the calculator agrees block for block with the toolkit's
 * own host-side calculator, cuda_occupancy.h (the arithmetic behind
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor), used here as the oracle
 * only; the cliffs are where one more register or unit loses a block.
 * --backend cuda: the live device's figures, and for test kernels of several
 * register and shared-memory footprints (test_occupancy_kernels.cu) over
 * block sizes and dynamic shared memory, the calculator agrees with
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor itself. Skips without a GPU. */
#include "exec/occupancy.h"

#include <cuda_occupancy.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* test_occupancy_kernels.cu: kernel k's attributes and the runtime's answer */
int occ_test_kernel_count(void);
int occ_test_kernel(int k, int *regs, size_t *static_smem, const char **name);
int occ_test_runtime(int k, int threads, size_t dyn_smem, int *blocks);

static int nfail, nchecks;
#define EXPECT(cond, ...)                                                                                      \
    do {                                                                                                       \
        nchecks++;                                                                                             \
        if (!(cond)) {                                                                                         \
            if (nfail++ < 20) {                                                                                \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                    \
                printf(__VA_ARGS__);                                                                           \
                printf("\n");                                                                                  \
            }                                                                                                  \
        }                                                                                                      \
    } while (0)

static int ours(const occ_device *d, const occ_kernel *k, int by_regs_only)
{
    if (by_regs_only) return occ_threads_by_regs(d, k->regs);
    occ_result r;
    if (occ_compute(d, k, &r)) return -100;
    return r.blocks;
}

static void test_examples(void)
{
    size_t n;
    const occ_example *ex = occ_examples(&n);
    EXPECT(n >= 14, "%zu examples", n);
    for (size_t i = 0; i < n; i++) {
        const occ_example *e = &ex[i];
        int got = ours(&e->device, &e->kernel, e->by_regs_only);
        EXPECT(got == e->want, "%s (%s) \"%s\": %d, want %d", e->id, e->source, e->text, got, e->want);
        if (e->want_hw >= 0) {
            occ_device h = occ_as_hardware(&e->device);
            got = ours(&h, &e->kernel, e->by_regs_only);
            EXPECT(got == e->want_hw, "%s \"%s\" under the hardware rule: %d, want %d", e->id, e->text, got,
                   e->want_hw);
        }
        /* where the book gives an occupancy and ours agrees, the fractions agree */
        if (!e->by_regs_only && e->book_blocks == e->want && e->book_occupancy >= 0) {
            occ_result r;
            occ_compute(&e->device, &e->kernel, &r);
            EXPECT(fabs(r.occupancy - e->book_occupancy) < 0.01, "%s: occupancy %.3f, book %.3f", e->id,
                   r.occupancy, e->book_occupancy);
        }
    }
    /* the limiter named: PMPP 5.6's worked example is register-limited */
    occ_result r;
    occ_compute(&ex[7].device, &ex[7].kernel, &r);
    EXPECT(r.limiter == OCC_LIM_REGS && r.blocks == 4, "5.6 worked example: limiter %s, %d blocks",
           occ_limit_names[r.limiter], r.blocks);
    /* exercise 12a read per block: shared memory decides */
    occ_compute(&ex[8].device, &ex[8].kernel, &r);
    EXPECT(r.limiter == OCC_LIM_SMEM && r.blocks == 24, "ex. 12a: limiter %s, %d blocks", occ_limit_names[r.limiter],
           r.blocks);
}

/* ------------------------------------------------ against cuda_occupancy.h -- */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int oracle(const occ_device *d, const occ_kernel *k)
{
    cudaOccDeviceProp p;
    cudaOccFuncAttributes a;
    cudaOccDeviceState s;
    cudaOccResult res;
    memset(&p, 0, sizeof p);
    memset(&a, 0, sizeof a);
    memset(&s, 0, sizeof s);
    memset(&res, 0, sizeof res);
    p.computeMajor = d->cc_major;
    p.computeMinor = d->cc_minor;
    p.maxThreadsPerBlock = d->max_threads_per_block;
    p.maxThreadsPerMultiprocessor = d->threads_per_sm;
    p.regsPerBlock = d->regs_per_block;
    p.regsPerMultiprocessor = d->regs_per_sm;
    p.warpSize = d->warp_size;
    p.sharedMemPerBlock = d->smem_per_block;
    p.sharedMemPerMultiprocessor = d->smem_per_sm;
    p.numSms = 1;
    p.sharedMemPerBlockOptin = d->smem_per_block_optin;
    p.reservedSharedMemPerBlock = d->smem_reserved;
    a.maxThreadsPerBlock = d->max_threads_per_block;
    a.numRegs = k->regs;
    a.sharedSizeBytes = 0; /* all of it dynamic */
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = k->smem > d->smem_per_block ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
    a.maxDynamicSharedSizeBytes = k->smem > d->smem_per_block ? d->smem_per_block_optin : d->smem_per_block;
    s.cacheConfig = CACHE_PREFER_NONE;
    s.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
    cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &a, &s, k->threads, k->smem);
    if (err != CUDA_OCC_SUCCESS) return -1;
    return res.activeBlocksPerMultiprocessor;
}

static void test_against_toolkit(void)
{
    const char *names[] = {"h100", "a100", "rtx2080ti", "gtx1080", "k40c"};
    for (size_t di = 0; di < sizeof names / sizeof *names; di++) {
        const occ_device *d = occ_preset(names[di]);
        EXPECT(d != NULL, "preset %s", names[di]);
        if (!d) continue;
        int disagree = 0;
        for (int it = 0; it < 40000; it++) {
            occ_kernel k;
            uint64_t r = next();
            /* block sizes: whole warps mostly, odd ones too */
            k.threads = (r & 3) ? 32 * (int)(1 + (r >> 2) % 32) : (int)(1 + (r >> 2) % 1024);
            r = next();
            k.regs = (r & 7) == 0 ? 0 : (int)(r % 256);
            if (k.regs > d->max_regs_per_thread) k.regs = d->max_regs_per_thread;
            r = next();
            size_t top = d->smem_per_block_optin > d->smem_per_block ? d->smem_per_block_optin : d->smem_per_block;
            k.smem = (r & 3) == 0 ? 0 : (size_t)(r >> 8) % (top + 1);
            occ_result got;
            if (occ_compute(d, &k, &got)) {
                EXPECT(0, "%s: threads %d regs %d smem %zu: %s", d->name, k.threads, k.regs, k.smem, got.why);
                continue;
            }
            int want = oracle(d, &k);
            if (want < 0) want = 0; /* the toolkit reports a kernel that cannot launch as an error */
            if (got.blocks != want && disagree++ < 5)
                EXPECT(0, "%s: threads %d regs %d smem %zu: %d blocks (%s), cuda_occupancy.h %d", d->name, k.threads,
                       k.regs, k.smem, got.blocks, occ_limit_names[got.limiter], want);
            nchecks++;
        }
        if (disagree) nfail += disagree;
        printf("%-10s 40000 random kernels: %d disagree with cuda_occupancy.h\n", d->name, disagree);
    }
}

static void test_cliffs(void)
{
    /* G25: 64 registers, 512 threads on cc 6.x: one more register loses a block */
    const occ_device *d = occ_preset("gtx1080");
    occ_kernel k = {512, 64, 0};
    EXPECT(occ_regs_to_cliff(d, &k) == 1, "gtx1080 512 x 64: cliff in %d registers", occ_regs_to_cliff(d, &k));
    /* the lecture's G80: 10 registers, 16x16 blocks: the 11th loses a block */
    d = occ_preset("g80");
    k = (occ_kernel){256, 10, 0};
    EXPECT(occ_regs_to_cliff(d, &k) == 1, "g80 256 x 10: cliff in %d", occ_regs_to_cliff(d, &k));
    /* H100, 256 threads, no registers counted, 32 KiB: the cliff is the next
     * 128-byte unit past 228 KiB / 6 blocks (with the 1 KiB reserve) */
    d = occ_preset("h100");
    k = (occ_kernel){256, 32, 32 * 1024};
    occ_result r0, r1;
    occ_compute(d, &k, &r0);
    size_t c = occ_smem_to_cliff(d, &k);
    occ_kernel k2 = k;
    k2.smem += c;
    occ_compute(d, &k2, &r1);
    k2.smem -= 128;
    occ_result r2;
    occ_compute(d, &k2, &r2);
    EXPECT(c > 0 && r1.blocks < r0.blocks && r2.blocks == r0.blocks, "h100 smem cliff %zu: %d -> %d (one unit less: %d)",
           c, r0.blocks, r1.blocks, r2.blocks);
    /* bad kernels say why */
    k = (occ_kernel){2048, 32, 0};
    EXPECT(occ_compute(d, &k, &r0) == 0 && r0.blocks == 0 && strstr(r0.why, "1024"), "2048 threads: %s", r0.why);
    k = (occ_kernel){256, 300, 0};
    EXPECT(occ_compute(d, &k, &r0) == 0 && r0.blocks == 0 && strstr(r0.why, "255"), "300 registers: %s", r0.why);
    k = (occ_kernel){256, 32, 300 * 1024};
    EXPECT(occ_compute(d, &k, &r0) == 0 && r0.blocks == 0 && strstr(r0.why, "shared"), "300 KiB: %s", r0.why);
    k = (occ_kernel){0, 32, 0};
    EXPECT(occ_compute(d, &k, &r0) == -1, "0 threads accepted");
    EXPECT(occ_compute(NULL, &k, &r0) == -1, "no device accepted");
}

static int test_runtime(void)
{
    occ_device d;
    char what[256], why[256];
    if (occ_device_query(0, &d, what, sizeof what, why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    printf("device: %s\n", d.what);
    int nk = occ_test_kernel_count();
    const int sizes[] = {32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024};
    for (int kk = 0; kk < nk; kk++) {
        int regs;
        size_t st;
        const char *name;
        if (occ_test_kernel(kk, &regs, &st, &name)) {
            EXPECT(0, "kernel %d: attributes", kk);
            continue;
        }
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (size_t dyn = 0; dyn <= 40 * 1024; dyn += 10 * 1024) {
                occ_kernel k = {sizes[si], regs, st + dyn};
                occ_result r;
                int want = -1;
                if (occ_test_runtime(kk, sizes[si], dyn, &want)) continue; /* launch config refused */
                occ_compute(&d, &k, &r);
                EXPECT(r.blocks == want, "%s (%d regs, %zu static) threads %d dyn %zu: %d blocks, the runtime %d",
                       name, regs, st, sizes[si], dyn, r.blocks, want);
            }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *backend = "cpu";
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend = argv[++i];
    if (!strcmp(backend, "cuda")) {
        int rc = test_runtime();
        if (rc == 77) return 77;
    } else {
        test_examples();
        test_against_toolkit();
        test_cliffs();
    }
    printf("%s: %d checks, %d failed\n", nfail ? "FAILED" : "PASSED", nchecks, nfail);
    return nfail ? 1 : 0;
}
