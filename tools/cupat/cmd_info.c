/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_info.c — `cupat info`: what the machine is (a deviceQuery-style report
 * of the CUDA device, or the host's equivalents on the CPU backend) and what
 * it measurably does (the ceilings every "% of ceiling" in the lab divides by). */
#define _GNU_SOURCE /* sched_getaffinity, sysconf cache and page counts */
#include "ceilings.h"
#include "cli.h"
#include "commands.h"
#include "harness.h"

#include <cuda_runtime_api.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#else
/* The library's CPU backend runs on OpenMP and brings the runtime to the link
 * even when this file is compiled without -fopenmp: ask that runtime. */
int omp_get_max_threads(void);
#endif

static const char CMD[] = "cupat info";

static void usage(void)
{
    printf("Usage: cupat info [--backend auto|cpu|cuda] [--device N] [--no-measure]\n"
           "\n"
           "Device query and measured ceilings. On the CUDA backend: the device's\n"
           "properties (compute capability, SMs, clocks, memory, caches, limits,\n"
           "features, PCI, versions) and theoretical memory bandwidth and FP32 rate;\n"
           "on the CPU backend (or with no CUDA device) the host's equivalents.\n"
           "Then the ceilings measured on the backend: copy GB/s, read GB/s, FP32\n"
           "GFLOP/s (about a second).\n"
           "\n"
           "Options:\n"
           "  --backend B   auto (default: CUDA when present, else CPU), cpu or cuda\n"
           "  --device N    CUDA device index (default: the current device, 0)\n"
           "  --no-measure  report the properties only; skip the ceilings\n"
           "  -h, --help    this text\n");
}

static void row(const char *label, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void row(const char *label, const char *fmt, ...)
{
    va_list ap;
    printf("  %-32s ", label);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static const char *yn(int v) { return v ? "yes" : "no"; }

static void print_ceilings_header(const bench_ceilings *c, const char *where)
{
    char b[32];
    printf("\nmeasured ceilings (%s, %s buffers, %s):\n", where,
           cli_bytes(b, sizeof b, (double)c->copy_bytes), c->method ? c->method : "?");
}

static int measure_failed(cupat_ctx *ctx, cupat_status s)
{
    const char *m = cupat_last_error(ctx);
    fprintf(stderr, "%s: measuring the ceilings failed: %s%s%s\n", CMD, cupat_status_string(s),
            *m ? ": " : "", m);
    return 1;
}

/* ---------------------------------------------------------------- CUDA -- */

static int cuda_fail(cudaError_t e, const char *call)
{
    (void)cudaGetLastError();
    fprintf(stderr, "%s: %s failed: %s (%s)\n", CMD, call, cudaGetErrorString(e),
            cudaGetErrorName(e));
    return 1;
}
#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) return cuda_fail(e_, #call);                              \
    } while (0)

/* FP32 FMA lanes per SM by architecture (CUDA Programming Guide, "Arithmetic
 * Instructions" throughput table); 0 where we do not know. */
static int fp32_lanes_per_sm(int major, int minor)
{
    switch (major) {
    case 3: return 192;
    case 5: return 128;
    case 6: return minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128;
    case 9: case 10: case 11: case 12: return 128;
    default: return 0;
    }
}

static const char *compute_mode_name(int m)
{
    switch (m) {
    case cudaComputeModeDefault: return "default (shared)";
    case cudaComputeModeExclusive: return "exclusive thread";
    case cudaComputeModeProhibited: return "prohibited";
    case cudaComputeModeExclusiveProcess: return "exclusive process";
    }
    return "unknown";
}

static int info_cuda(cupat_ctx *ctx, int measure)
{
    int dev = cupat_get_device(ctx), ndev = 0;
    struct cudaDeviceProp p;
    /* Clocks and compute mode left cudaDeviceProp in CUDA 13: attributes. */
    int clock_khz = 0, memclock_khz = 0, mode = 0, timeout = 0;
    size_t mem_free = 0, mem_total = 0;
    int drv = 0, rt = 0;
    char pci[32] = "";
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&memclock_khz, cudaDevAttrMemoryClockRate, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&timeout, cudaDevAttrKernelExecTimeout, dev));
    CUDA_CHECK(cudaMemGetInfo(&mem_free, &mem_total));
    CUDA_CHECK(cudaDriverGetVersion(&drv));
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    CUDA_CHECK(cudaDeviceGetPCIBusId(pci, (int)sizeof pci, dev));

    char b1[32], b2[32], b3[32];
    int lanes = fp32_lanes_per_sm(p.major, p.minor);
    /* DDR: two transfers per memory clock, bus width in bits. */
    double peak_gbs = 2.0 * memclock_khz * 1e3 * (p.memoryBusWidth / 8.0) / 1e9;
    double peak_gflops = (double)p.multiProcessorCount * lanes * 2.0 * clock_khz * 1e3 / 1e9;

    printf("cupat %s info: CUDA backend, device %d of %d\n", cupat_version(), dev, ndev);
    row("device", "%s", p.name);
    row("compute capability", "%d.%d (sm_%d%d)", p.major, p.minor, p.major, p.minor);
    if (lanes)
        row("multiprocessors (SMs)", "%d x %d FP32 lanes = %d", p.multiProcessorCount, lanes,
            p.multiProcessorCount * lanes);
    else
        row("multiprocessors (SMs)", "%d", p.multiProcessorCount);
    row("GPU max clock", "%.0f MHz", clock_khz / 1e3);
    row("global memory", "%s total, %s free", cli_bytes(b1, sizeof b1, (double)mem_total),
        cli_bytes(b2, sizeof b2, (double)mem_free));
    row("memory clock / bus width", "%.0f MHz / %d-bit", memclock_khz / 1e3, p.memoryBusWidth);
    if (peak_gbs > 0.0)
        row("theoretical memory bandwidth", "%.1f GB/s (2 x clock x bus width)", peak_gbs);
    else
        row("theoretical memory bandwidth", "unknown (clock or bus width not reported)");
    if (lanes && peak_gflops > 0.0)
        row("theoretical FP32", "%.1f GFLOP/s (SMs x lanes x 2 flops/FMA x clock)", peak_gflops);
    else
        row("theoretical FP32", "unknown for sm_%d%d", p.major, p.minor);
    row("L2 cache", "%s", cli_bytes(b1, sizeof b1, (double)p.l2CacheSize));
    row("persisting L2 max", "%s (access-policy window max %s)",
        cli_bytes(b1, sizeof b1, (double)p.persistingL2CacheMaxSize),
        cli_bytes(b2, sizeof b2, (double)p.accessPolicyMaxWindowSize));
    row("constant memory", "%s", cli_bytes(b1, sizeof b1, (double)p.totalConstMem));
    row("shared memory per block", "%s (opt-in %s, %s reserved per block)",
        cli_bytes(b1, sizeof b1, (double)p.sharedMemPerBlock),
        cli_bytes(b2, sizeof b2, (double)p.sharedMemPerBlockOptin),
        cli_bytes(b3, sizeof b3, (double)p.reservedSharedMemPerBlock));
    row("shared memory per SM", "%s", cli_bytes(b1, sizeof b1, (double)p.sharedMemPerMultiprocessor));
    row("registers per block / per SM", "%d / %d", p.regsPerBlock, p.regsPerMultiprocessor);
    row("warp size", "%d", p.warpSize);
    row("max threads per block / per SM", "%d / %d", p.maxThreadsPerBlock,
        p.maxThreadsPerMultiProcessor);
    row("max blocks per SM", "%d", p.maxBlocksPerMultiProcessor);
    row("max block dims", "%d x %d x %d", p.maxThreadsDim[0], p.maxThreadsDim[1],
        p.maxThreadsDim[2]);
    row("max grid dims", "%d x %d x %d", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
    row("async copy engines", "%d%s", p.asyncEngineCount,
        p.asyncEngineCount >= 2 ? " (H2D and D2H copies can overlap each other and kernels)"
        : p.asyncEngineCount == 1 ? " (copies can overlap kernels)" : "");
    row("unified addressing (UVA)", "%s", yn(p.unifiedAddressing));
    row("managed memory", "%s", yn(p.managedMemory));
    row("concurrent managed access", "%s", yn(p.concurrentManagedAccess));
    row("pageable memory access", "%s%s", yn(p.pageableMemoryAccess),
        p.pageableMemoryAccessUsesHostPageTables ? " (through the host's page tables)" : "");
    row("map host memory (zero-copy)", "%s", yn(p.canMapHostMemory));
    row("host native atomics", "%s", yn(p.hostNativeAtomicSupported));
    row("concurrent kernels", "%s", yn(p.concurrentKernels));
    row("cooperative launch", "%s", yn(p.cooperativeLaunch));
    row("cluster launch", "%s", yn(p.clusterLaunch));
    row("memory pools (cudaMallocAsync)", "%s", yn(p.memoryPoolsSupported));
    row("integrated (shares host memory)", "%s", yn(p.integrated));
    row("compute mode", "%s", compute_mode_name(mode));
    row("kernel run-time limit", "%s", yn(timeout));
    row("ECC", "%s", p.ECCEnabled ? "enabled" : "disabled");
    if (p.gpuPciDeviceID) /* NVML layout: device id high half, vendor id low half */
        row("PCI", "%s (vendor 0x%04x, device 0x%04x)", pci, p.gpuPciDeviceID & 0xffffu,
            p.gpuPciDeviceID >> 16);
    else
        row("PCI", "%s", pci);
    row("CUDA driver / runtime", "%d.%d / %d.%d", drv / 1000, drv % 1000 / 10, rt / 1000,
        rt % 1000 / 10);
    if (!measure) return 0;

    bench_ceilings c;
    cupat_status s = bench_ceilings_measure(ctx, &c);
    if (s != CUPAT_SUCCESS) return measure_failed(ctx, s);
    print_ceilings_header(&c, p.name);
    if (peak_gbs > 0.0) {
        row("copy (D2D, read + write)", "%9.1f GB/s     %3.0f%% of theoretical %.0f GB/s",
            c.copy_gbs, 100.0 * c.copy_gbs / peak_gbs, peak_gbs);
        row("read (streaming kernel)", "%9.1f GB/s     %3.0f%% of theoretical %.0f GB/s",
            c.read_gbs, 100.0 * c.read_gbs / peak_gbs, peak_gbs);
    } else {
        row("copy (D2D, read + write)", "%9.1f GB/s", c.copy_gbs);
        row("read (streaming kernel)", "%9.1f GB/s", c.read_gbs);
    }
    if (lanes && peak_gflops > 0.0)
        row("FP32 (FMA)", "%9.0f GFLOP/s  %3.0f%% of theoretical %.0f GFLOP/s", c.fp32_gflops,
            100.0 * c.fp32_gflops / peak_gflops, peak_gflops);
    else
        row("FP32 (FMA)", "%9.0f GFLOP/s", c.fp32_gflops);
    if (c.tc_bf16_gflops > 0) {
        row("tensor f16 (wgmma, dense)", "%9.0f GFLOP/s", c.tc_f16_gflops);
        row("tensor bf16 (wgmma, dense)", "%9.0f GFLOP/s", c.tc_bf16_gflops);
    } else
        row("tensor (wgmma)", "not measured: needs a compute capability 9.0 device");
    return 0;
}

/* ----------------------------------------------------------------- CPU -- */

/* First line of a small text file, newline stripped; 0 on success. Absent
 * files (containers, other kernels, other architectures) are expected. */
static int read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *ok = fgets(buf, (int)n, f);
    fclose(f);
    if (!ok) return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* Value of the first "key<spaces>: value" line of /proc/cpuinfo with that key. */
static int cpuinfo_value(const char *key, char *out, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return -1;
    char line[4096];
    int found = -1;
    size_t k = strlen(key);
    while (found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, k) != 0 || (line[k] != ' ' && line[k] != '\t' && line[k] != ':'))
            continue;
        char *v = strchr(line, ':');
        if (!v) continue;
        v += 1 + strspn(v + 1, " \t");
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, n, "%s", v);
        found = 0;
    }
    fclose(f);
    return found;
}

static void cpu_model(char *out, size_t n)
{
    char a[256], b[256];
    if (cpuinfo_value("model name", out, n) == 0) return; /* x86 and some ARM */
    if (cpuinfo_value("Hardware", out, n) == 0) return;
    if (cpuinfo_value("CPU implementer", a, sizeof a) == 0 &&
        cpuinfo_value("CPU part", b, sizeof b) == 0) { /* arm64: IDs only (0x41 0xd4f: Neoverse V2) */
        snprintf(out, n, "ARM implementer %s, part %s", a, b);
        return;
    }
    snprintf(out, n, "unknown (no model in /proc/cpuinfo)");
}

/* Whether `word` occurs as a whole space-separated token in `list`. */
static int has_token(const char *list, const char *word)
{
    size_t k = strlen(word);
    for (const char *s = list; (s = strstr(s, word)) != NULL; s += k)
        if ((s == list || s[-1] == ' ') && (s[k] == ' ' || s[k] == '\0')) return 1;
    return 0;
}

static void cpu_simd(char *out, size_t n)
{
    static const char *const want[] = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw",
                                       "avx512_bf16", "amx_tile", "asimd", "asimdhp", "sve",
                                       "sve2"};
    char flags[4096];
    out[0] = '\0';
    if (cpuinfo_value("flags", flags, sizeof flags) != 0 &&
        cpuinfo_value("Features", flags, sizeof flags) != 0)
        return;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (has_token(flags, want[i])) {
            size_t len = strlen(out);
            snprintf(out + len, n - len, "%s%s", len ? " " : "", want[i]);
        }
}

/* Number of CPUs in a sysfs list such as "0-3,8-11". */
static int count_cpu_list(const char *s)
{
    int count = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s) break;
        if (*end == '-') b = strtol(end + 1, &end, 10);
        count += (int)(b - a + 1);
        s = *end == ',' ? end + 1 : end;
        if (*end != ',') break;
    }
    return count;
}

/* Caches of cpu0 from sysfs ("L1d 48 KiB, L2 2 MiB, L3 32 MiB shared by 16"),
 * else from sysconf; "" when neither knows. */
static void cpu_caches(char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < 16; i++) {
        char path[128], level[16], type[32], size[32], shared[256] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (read_line(path, level, sizeof level)) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (read_line(path, type, sizeof type)) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (read_line(path, size, sizeof size)) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        (void)read_line(path, shared, sizeof shared);
        char *end;
        double bytes = strtod(size, &end);
        bytes *= *end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0 : *end == 'G' ? 1073741824.0 : 1.0;
        char b[32], sh[40] = "";
        int ncpu = count_cpu_list(shared);
        if (ncpu > 1) snprintf(sh, sizeof sh, " (shared by %d CPUs)", ncpu);
        const char *t = strcmp(type, "Data") == 0 ? "d" : strcmp(type, "Instruction") == 0 ? "i" : "";
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%sL%s%s %s%s", len ? ", " : "", level, t,
                 cli_bytes(b, sizeof b, bytes), sh);
    }
    if (out[0]) return;
#ifdef _SC_LEVEL1_DCACHE_SIZE
    static const struct { int name; const char *label; } sc[] = {
        {_SC_LEVEL1_DCACHE_SIZE, "L1d"}, {_SC_LEVEL1_ICACHE_SIZE, "L1i"},
        {_SC_LEVEL2_CACHE_SIZE, "L2"}, {_SC_LEVEL3_CACHE_SIZE, "L3"}};
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        long v = sysconf(sc[i].name);
        if (v <= 0) continue;
        char b[32];
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s %s", len ? ", " : "", sc[i].label,
                 cli_bytes(b, sizeof b, (double)v));
    }
#endif
}

/* How many entries a sysfs list ("0", "0-3", "0,2-3,8") names; 0 when malformed. */
static int list_count(const char *list)
{
    int count = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0) return 0;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a) return 0;
            p = end;
        }
        count += (int)(b - a + 1);
        if (*p == ',') p++;
        else if (*p) return 0;
    }
    return count;
}

static int info_cpu(cupat_ctx *ctx, int measure)
{
    char s[4096], b1[32], b2[32];
    printf("cupat %s info: CPU backend\n", cupat_version());
    const char *why = cli_no_cuda_reason();
    if (why) row("CUDA device", "none (%s)", why);
    else row("CUDA device", "present, not used (--backend cpu)");

    cpu_model(s, sizeof s);
    row("CPU", "%s", s);
    long online = sysconf(_SC_NPROCESSORS_ONLN), conf = sysconf(_SC_NPROCESSORS_CONF);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        row("logical cores", "%ld online of %ld, %d in this process's affinity mask", online,
            conf, CPU_COUNT(&set));
    else
        row("logical cores", "%ld online of %ld", online, conf);
    row("OpenMP max threads", "%d", omp_get_max_threads());
    if (read_line("/sys/devices/system/node/online", s, sizeof s) == 0 && list_count(s) > 0)
        row("NUMA nodes online", "%d (node list: %s)", list_count(s), s);
    else
        row("NUMA nodes online", "unknown (no /sys/devices/system/node/online)");
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    double avail = bench_host_memory_available(); /* MemAvailable, else free pages */
    if (pages > 0 && psz > 0 && avail >= 0)
        row("memory", "%s total, %s available", cli_bytes(b1, sizeof b1, (double)pages * psz),
            cli_bytes(b2, sizeof b2, avail));
    else if (pages > 0 && psz > 0)
        row("memory", "%s total", cli_bytes(b1, sizeof b1, (double)pages * psz));
    else
        row("memory", "unknown");
    if (psz > 0) row("page size", "%s", cli_bytes(b1, sizeof b1, (double)psz));
    cpu_caches(s, sizeof s);
    row("caches (cpu0)", "%s", s[0] ? s : "unknown");
    cpu_simd(s, sizeof s);
    if (s[0]) row("SIMD", "%s", s);
    int rt = 0, drv = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0; /* 0: no driver installed */
    (void)cudaGetLastError();
    if (drv)
        row("CUDA driver / runtime", "%d.%d / %d.%d", drv / 1000, drv % 1000 / 10, rt / 1000,
            rt % 1000 / 10);
    else
        row("CUDA driver / runtime", "none / %d.%d", rt / 1000, rt % 1000 / 10);
    if (!measure) return 0;

    bench_ceilings c;
    cupat_status st = bench_ceilings_measure(ctx, &c);
    if (st != CUPAT_SUCCESS) return measure_failed(ctx, st);
    snprintf(s, sizeof s, "CPU, %d OpenMP threads", omp_get_max_threads());
    print_ceilings_header(&c, s);
    row("copy (read + write)", "%9.1f GB/s", c.copy_gbs);
    row("read", "%9.1f GB/s", c.read_gbs);
    row("FP32 (FMA)", "%9.1f GFLOP/s", c.fp32_gflops);
    return 0;
}

/* ------------------------------------------------------------- command -- */

int cmd_info(int argc, char **argv)
{
    cupat_backend backend = CUPAT_BACKEND_AUTO;
    long device = -1;
    int measure = 1;
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            usage();
            return 0;
        }
    for (int i = 1; i < argc; i++) {
        int common = cli_backend_opt(argc, argv, &i, CMD, &backend, &device);
        if (common) {
            if (common == 2) return 2;
            continue;
        }
        if (strcmp(argv[i], "--no-measure") == 0) {
            measure = 0;
        } else {
            return cli_unknown(CMD, argv[i]);
        }
    }
    cupat_ctx *ctx = cli_context(backend, (int)device);
    if (!ctx) return 1;
    fflush(stderr); /* the fallback line comes before the report */
    int rc = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA ? info_cuda(ctx, measure)
                                                          : info_cpu(ctx, measure);
    cupat_destroy(ctx);
    return rc;
}
