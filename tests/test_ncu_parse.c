/* SPDX-License-Identifier: Apache-2.0 */
/* test_ncu_parse.c — `cupat bench --ncu`'s host side (bench/ncu.c), no GPU:
 *  - ncu's `--csv --page raw` output, written by hand in its documented
 *    shape (==PROF== lines, a header row with the quoted fixed columns and
 *    the metric names, a units row, one row per kernel, thousands
 *    separators, kernel names with commas): bytes and time summed over the
 *    kernels, percentages weighted by each kernel's time, the kernels
 *    counted, the limiter; the main kernel (the longest, the first of
 *    equals, not the first row) and its launch: registers, shared memory
 *    static + dynamic, block size, theoretical occupancy; other units
 *    (Mbyte, usecond, Kbyte/block, register) scaled; no units row; columns
 *    in another order and extra columns;
 *  - malformed CSV (a row of the wrong width, a quote left open, a metric
 *    column missing, the new launch columns among them, "n/a", an unknown
 *    unit, no CSV at all) and an empty profile (header, no kernels): each an
 *    error with a one-line reason;
 *  - the limiter's thresholds;
 *  - bench_ncu_profile with a stand-in ncu (a shell script written here):
 *    the options it is given, the program it runs, the CSV from --log-file
 *    and from stdout, a failing program's message, ncu's ==ERROR== line, a
 *    timeout; bench_ncu_find and $CUPAT_NCU. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include "ncu.h"

#include <sys/stat.h>
#include <unistd.h>

#define HEAD                                                                             \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","  \
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
#define METRIC_NAMES                                                                     \
    "\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.sum\","     \
    "\"sm__warps_active.avg.pct_of_peak_sustained_active\","                             \
    "\"sm__inst_issued.avg.pct_of_peak_sustained_active\","                              \
    "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","              \
    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","                             \
    "\"launch__registers_per_thread\",\"launch__shared_mem_per_block_static\","         \
    "\"launch__shared_mem_per_block_dynamic\",\"launch__block_size\","                 \
    "\"sm__maximum_warps_per_active_cycle_pct\""
/* The units row `--print-units base` gives (the fixed columns have none). */
#define UNITS_BASE                                                                       \
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"nsecond\",\"%\","  \
    "\"%\",\"%\",\"%\",\"register/thread\",\"byte/block\",\"byte/block\",\"\",\"%\"\n"
/* The launch columns of a kernel row: registers a thread, static and dynamic
 * shared memory a block, threads a block, theoretical occupancy. */
#define LAUNCH(regs, st, dyn, block, theo)                                               \
    ",\"" regs "\",\"" st "\",\"" dyn "\",\"" block "\",\"" theo "\""
/* A kernel row's launch columns where the test is about something else. */
#define LAUNCH_ANY LAUNCH("32", "0", "0", "256", "100")
#define FIXED(id, name)                                                                  \
    "\"" id "\",\"4242\",\"cupat\",\"127.0.0.1\",\"" name "\",\"1\",\"13\","             \
    "\"(256, 1, 1)\",\"(1056, 1, 1)\",\"0\",\"9.0\","

/* Two kernels of one call (a two-pass scan, say): 3 ms and 1 ms. */
static const char two_kernels[] =
    "==PROF== Connected to process 4242 (/usr/local/bin/cupat)\n"
    "==PROF== Profiling \"k_upsweep\" - 0: 0%....50%....100% - 9 passes\n"
    "==PROF== Profiling \"k_downsweep\" - 1: 0%....50%....100% - 9 passes\n"
    "==PROF== Disconnected from process 4242\n"
    HEAD METRIC_NAMES "\n" UNITS_BASE
    FIXED("0", "void k_upsweep<256, 4>(const float *, float *, int)")
    "\"1,073,741,824\",\"4,096\",\"3,000,000\",\"80.5\",\"40\",\"90\",\"30\""
    LAUNCH("40", "4,096", "32,768", "256", "87.5") "\n"
    FIXED("1", "void k_downsweep<256, 4>(const float *, float *, int)")
    "\"536,870,912\",\"1,073,741,824\",\"1,000,000\",\"40.5\",\"20\",\"50\",\"70\""
    LAUNCH("96", "0", "0", "512", "37.5") "\n";

static void test_sums(void)
{
    bench_ncu r;
    CHECK(bench_ncu_parse(two_kernels, &r) == 0, "parse: %s", r.error);
    CHECK(r.state == BENCH_NCU_OK && r.kernels == 2, "state %d, %d kernels", r.state, r.kernels);
    CHECK(r.dram_read_bytes == 1610612736.0, "read %.17g", r.dram_read_bytes);
    CHECK(r.dram_write_bytes == 1073745920.0, "write %.17g", r.dram_write_bytes);
    CHECK(r.gpu_ns == 4e6, "time %.17g ns", r.gpu_ns);
    /* weighted by 3 ms and 1 ms */
    CHECK(fabs(r.occupancy_pct - (3 * 80.5 + 40.5) / 4) < 1e-9, "occupancy %g", r.occupancy_pct);
    CHECK(fabs(r.issue_pct - 35.0) < 1e-9, "issue %g", r.issue_pct);
    CHECK(fabs(r.memory_pct - 80.0) < 1e-9, "memory %g", r.memory_pct);
    CHECK(fabs(r.sm_pct - 40.0) < 1e-9, "sm %g", r.sm_pct);
    CHECK(r.limiter && !strcmp(r.limiter, "memory"), "limiter %s", r.limiter ? r.limiter : "NULL");
    /* the main kernel: the 3 ms one, not the 1 ms one's 96 registers */
    CHECK(!strcmp(r.main_kernel, "void k_upsweep<256, 4>(const float *, float *, int)"),
          "main kernel '%s'", r.main_kernel);
    CHECK(r.main_ns == 3e6, "main kernel time %.17g ns", r.main_ns);
    CHECK(r.regs_per_thread == 40, "registers %d", r.regs_per_thread);
    CHECK(r.smem_per_block == 4096.0 + 32768.0, "shared memory %.17g", r.smem_per_block);
    CHECK(r.threads_per_block == 256, "threads %d", r.threads_per_block);
    CHECK(r.theo_occupancy_pct == 87.5, "theoretical occupancy %g", r.theo_occupancy_pct);
}

/* The main kernel is the longest wherever it sits: a short helper first, the
 * main one, then one as long (the first of equals stays), a short tail. */
static void test_main_kernel(void)
{
    bench_ncu r;
    const char helpers[] =
        HEAD METRIC_NAMES "\n" UNITS_BASE
        FIXED("0", "k_zero_fill") "\"0\",\"4,096\",\"2,500\",\"10\",\"1\",\"5\",\"1\""
        LAUNCH("16", "0", "0", "1,024", "100") "\n"
        FIXED("1", "k_gemm_wgmma<128, 256>") "\"1\",\"2\",\"2,000,000\",\"20\",\"40\",\"30\",\"80\""
        LAUNCH("168", "1,024", "231,424", "384", "18.75") "\n"
        FIXED("2", "k_gemm_wgmma<128, 128>") "\"1\",\"2\",\"2,000,000\",\"30\",\"40\",\"30\",\"80\""
        LAUNCH("90", "0", "0", "256", "50") "\n"
        FIXED("3", "k_epilogue") "\"1\",\"2\",\"7,500\",\"60\",\"10\",\"70\",\"10\""
        LAUNCH("255", "0", "0", "32", "6.25") "\n";
    CHECK(bench_ncu_parse(helpers, &r) == 0, "helpers: %s", r.error);
    CHECK(r.kernels == 4 && r.gpu_ns == 4010000.0, "%d kernels, %g ns", r.kernels, r.gpu_ns);
    CHECK(!strcmp(r.main_kernel, "k_gemm_wgmma<128, 256>"), "main kernel '%s'", r.main_kernel);
    CHECK(r.main_ns == 2e6 && r.regs_per_thread == 168 && r.smem_per_block == 232448.0 &&
              r.threads_per_block == 384 && r.theo_occupancy_pct == 18.75,
          "main kernel: %g ns, %d registers, %g bytes, %d threads, %g%%", r.main_ns,
          r.regs_per_thread, r.smem_per_block, r.threads_per_block, r.theo_occupancy_pct);
}

static void test_units_and_layout(void)
{
    bench_ncu r;
    /* auto-scaled units, CRLF line ends, the program's own output between */
    const char scaled[] =
        "some line the program printed\r\n" HEAD METRIC_NAMES "\r\n"
        "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Mbyte\",\"Kbyte\",\"usecond\","
        "\"%\",\"%\",\"%\",\"%\",\"register\",\"Kbyte/block\",\"KiB/block\",\"thread\",\"%\"\r\n"
        FIXED("0", "k_gemm") "\"1,234.5\",\"2\",\"12.5\",\"50\",\"75\",\"30\",\"85\""
        LAUNCH("128", "16.38", "64", "128", "25") "\r\n";
    CHECK(bench_ncu_parse(scaled, &r) == 0, "scaled: %s", r.error);
    CHECK(r.regs_per_thread == 128 && r.threads_per_block == 128 && r.theo_occupancy_pct == 25,
          "scaled launch: %d registers, %d threads, %g%%", r.regs_per_thread,
          r.threads_per_block, r.theo_occupancy_pct);
    CHECK(fabs(r.smem_per_block - (16380.0 + 65536.0)) < 1e-6, "scaled shared memory %.17g",
          r.smem_per_block);
    CHECK(r.dram_read_bytes == 1234.5e6 && r.dram_write_bytes == 2e3,
          "scaled bytes %.17g %.17g", r.dram_read_bytes, r.dram_write_bytes);
    CHECK(r.gpu_ns == 12.5e3, "scaled time %g", r.gpu_ns);
    CHECK(r.limiter && !strcmp(r.limiter, "compute"), "limiter %s", r.limiter);

    /* no units row; the metrics in another order, an extra column */
    const char reordered[] =
        HEAD "\"sm__maximum_warps_per_active_cycle_pct\",\"launch__block_size\","
        "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"launch__grid_size\","
        "\"launch__shared_mem_per_block_dynamic\","
        "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
        "\"sm__inst_issued.avg.pct_of_peak_sustained_active\","
        "\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"gpu__time_duration.sum\","
        "\"launch__shared_mem_per_block_static\",\"launch__registers_per_thread\","
        "\"dram__bytes_write.sum\",\"dram__bytes_read.sum\"\n"
        FIXED("0", "k") "\"50\",\"512\",\"10\",\"1056\",\"100\",\"20\",\"5\",\"12.5\",\"2,000\","
        "\"28\",\"64\",\"100\",\"300\"\n"
        FIXED("1", "k") "\"75\",\"64\",\"30\",\"1056\",\"0\",\"40\",\"15\",\"37.5\",\"0\","
        "\"0\",\"20\",\"100\",\"300\"\n";
    CHECK(bench_ncu_parse(reordered, &r) == 0, "reordered: %s", r.error);
    CHECK(r.kernels == 2 && r.dram_read_bytes == 600 && r.dram_write_bytes == 200,
          "reordered: %d kernels, %g, %g", r.kernels, r.dram_read_bytes, r.dram_write_bytes);
    /* time-weighted: the second kernel took no time */
    CHECK(r.sm_pct == 10 && r.memory_pct == 20 && r.occupancy_pct == 12.5 && r.issue_pct == 5,
          "reordered pcts %g %g %g %g", r.sm_pct, r.memory_pct, r.occupancy_pct, r.issue_pct);
    CHECK(!strcmp(r.limiter, "latency"), "limiter %s", r.limiter);
    /* the launch figures found by name too: the first kernel's, the longer */
    CHECK(r.regs_per_thread == 64 && r.smem_per_block == 128 && r.threads_per_block == 512 &&
              r.theo_occupancy_pct == 50,
          "reordered launch: %d registers, %g bytes, %d threads, %g%%", r.regs_per_thread,
          r.smem_per_block, r.threads_per_block, r.theo_occupancy_pct);

    /* no time at all: plain means; the main kernel the first of equals */
    const char no_time[] = HEAD METRIC_NAMES "\n"
        FIXED("0", "k_a") "\"1\",\"1\",\"0\",\"10\",\"10\",\"60\",\"10\""
        LAUNCH("24", "0", "0", "128", "100") "\n"
        FIXED("1", "k_b") "\"1\",\"1\",\"0\",\"30\",\"30\",\"80\",\"30\""
        LAUNCH("48", "0", "0", "256", "50") "\n";
    CHECK(bench_ncu_parse(no_time, &r) == 0, "no time: %s", r.error);
    CHECK(r.occupancy_pct == 20 && r.memory_pct == 70 && !strcmp(r.limiter, "memory"),
          "no time: occupancy %g, memory %g, %s", r.occupancy_pct, r.memory_pct, r.limiter);
    CHECK(!strcmp(r.main_kernel, "k_a") && r.regs_per_thread == 24 && r.main_ns == 0,
          "no time: main kernel '%s', %d registers", r.main_kernel, r.regs_per_thread);
}

/* parse must fail, with `needle` in a one-line message */
static void bad(const char *what, const char *text, const char *needle)
{
    bench_ncu r;
    int rc = bench_ncu_parse(text, &r);
    CHECK(rc == -1 && r.state == BENCH_NCU_ERROR, "%s: rc %d state %d", what, rc, r.state);
    CHECK(strstr(r.error, needle) != NULL, "%s: message '%s' lacks '%s'", what, r.error, needle);
    CHECK(!strchr(r.error, '\n') && r.error[0], "%s: message '%s' is not one line", what, r.error);
}

static void test_malformed(void)
{
    bad("short row", HEAD METRIC_NAMES "\n" FIXED("0", "k") "\"1\",\"2\"\n", "has 13 fields, its header 23");
    bad("open quote", HEAD METRIC_NAMES "\n" FIXED("0", "k(float*") "\"1\n", "a quote left open");
    bad("missing column",
        HEAD "\"dram__bytes_read.sum\",\"gpu__time_duration.sum\"\n" FIXED("0", "k") "\"1\",\"2\"\n",
        "no column 'dram__bytes_write.sum'");
    /* an ncu that has not the launch metrics, or a list that lost one */
    bad("missing launch column",
        HEAD "\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.sum\","
        "\"sm__warps_active.avg.pct_of_peak_sustained_active\","
        "\"sm__inst_issued.avg.pct_of_peak_sustained_active\","
        "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
        "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"launch__registers_per_thread\","
        "\"launch__shared_mem_per_block_static\",\"launch__block_size\","
        "\"sm__maximum_warps_per_active_cycle_pct\"\n"
        FIXED("0", "k") "\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"32\",\"0\",\"256\",\"100\"\n",
        "no column 'launch__shared_mem_per_block_dynamic'");
    bad("missing occupancy column",
        HEAD "\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.sum\","
        "\"sm__warps_active.avg.pct_of_peak_sustained_active\","
        "\"sm__inst_issued.avg.pct_of_peak_sustained_active\","
        "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
        "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"launch__registers_per_thread\","
        "\"launch__shared_mem_per_block_static\",\"launch__shared_mem_per_block_dynamic\","
        "\"launch__block_size\"\n"
        FIXED("0", "k") "\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"32\",\"0\",\"0\",\"256\"\n",
        "no column 'sm__maximum_warps_per_active_cycle_pct'");
    bad("n/a", HEAD METRIC_NAMES "\n" FIXED("0", "k_scan") "\"n/a\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"" LAUNCH_ANY "\n",
        "(kernel k_scan): dram__bytes_read.sum = 'n/a' is not a count");
    bad("launch n/a", HEAD METRIC_NAMES "\n" FIXED("0", "k_scan") "\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\""
        LAUNCH("32", "0", "0", "256", "n/a") "\n",
        "(kernel k_scan): sm__maximum_warps_per_active_cycle_pct = 'n/a' is not a percentage");
    bad("registers not a number", HEAD METRIC_NAMES "\n" FIXED("0", "k") "\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\""
        LAUNCH("many", "0", "0", "256", "100") "\n",
        "launch__registers_per_thread = 'many' is not a count");
    bad("negative", HEAD METRIC_NAMES "\n" FIXED("0", "k") "\"1\",\"1\",\"1\",\"-5\",\"1\",\"1\",\"1\"" LAUNCH_ANY "\n",
        "sm__warps_active.avg.pct_of_peak_sustained_active = '-5' is not a percentage");
    bad("unknown unit", HEAD METRIC_NAMES "\n"
        "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"sector\",\"byte\",\"nsecond\",\"%\","
        "\"%\",\"%\",\"%\",\"register/thread\",\"byte/block\",\"byte/block\",\"\",\"%\"\n"
        FIXED("0", "k") "\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"" LAUNCH_ANY "\n",
        "unit 'sector' of dram__bytes_read.sum");
    bad("unknown launch unit", HEAD METRIC_NAMES "\n"
        "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"nsecond\",\"%\","
        "\"%\",\"%\",\"%\",\"register/thread\",\"byte/block\",\"byte/block\",\"warp\",\"%\"\n"
        FIXED("0", "k") "\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"" LAUNCH_ANY "\n",
        "unit 'warp' of launch__block_size");
    bad("shared memory a thread", HEAD METRIC_NAMES "\n"
        "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"nsecond\",\"%\","
        "\"%\",\"%\",\"%\",\"register/thread\",\"byte/thread\",\"byte/block\",\"\",\"%\"\n"
        FIXED("0", "k") "\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"" LAUNCH_ANY "\n",
        "unit 'byte/thread' of launch__shared_mem_per_block_static");
    bad("bad id", HEAD METRIC_NAMES "\n" FIXED("x", "k") "\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"" LAUNCH_ANY "\n",
        "ID 'x' is not a kernel number");
    bad("no csv", "==PROF== Connected to process 1\n==ERROR== Failed to profile: ERR_NVGPUCTRPERM\n",
        "no CSV from ncu");
    bad("no csv, the error kept", "==ERROR== Failed to profile: ERR_NVGPUCTRPERM\n",
        "ERR_NVGPUCTRPERM");
    bad("empty text", "", "no CSV");
    bad("null", NULL, "no output");
    /* an empty profile: the range held no kernel */
    bad("no kernels", "==PROF== Connected\n" HEAD METRIC_NAMES "\n" UNITS_BASE
        "==PROF== Disconnected\n", "ncu profiled no kernels in the call");
    bad("no kernels, header only", HEAD METRIC_NAMES "\n", "no kernels");
    bad("no kernels, the warning kept",
        "==WARNING== No kernels were profiled.\n==ERROR== something\n" HEAD METRIC_NAMES "\n",
        "no kernels in the call: ==ERROR== something");
}

static void test_limiter(void)
{
    CHECK(!strcmp(bench_ncu_limiter(70, 40), "memory"), "70/40");
    CHECK(!strcmp(bench_ncu_limiter(40, 70), "compute"), "40/70");
    CHECK(!strcmp(bench_ncu_limiter(75, 80), "compute"), "75/80");
    CHECK(!strcmp(bench_ncu_limiter(60, 60), "memory"), "60/60: a tie goes to memory");
    CHECK(!strcmp(bench_ncu_limiter(59.9, 59.9), "latency"), "59.9/59.9");
    CHECK(!strcmp(bench_ncu_limiter(0, 0), "latency"), "0/0");
}

/* ------------------------------------------------- a stand-in ncu -- */

static char dir[256], fake[300], csv[300];

static void write_file(const char *path, const char *text, int exec)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
    if (exec) chmod(path, 0755);
}

/* It checks the options cupat gives, runs the program after them, and
 * writes $FAKE_NCU_CSV to --log-file (or to stdout) as FAKE_NCU_MODE says. */
static const char fake_ncu[] =
    "#!/bin/sh\n"
    "log= off= csv= page= units= metrics=\n"
    "while [ $# -gt 0 ]; do\n"
    "  case \"$1\" in\n"
    "    --log-file) log=$2; shift 2;;\n"
    "    --profile-from-start) off=$2; shift 2;;\n"
    "    --csv) csv=1; shift;;\n"
    "    --page) page=$2; shift 2;;\n"
    "    --print-units) units=$2; shift 2;;\n"
    "    --metrics) metrics=$2; shift 2;;\n"
    "    -*) echo \"==ERROR== unknown option $1\"; exit 9;;\n"
    "    *) break;;\n"
    "  esac\n"
    "done\n"
    "if [ \"$off\" != off ] || [ \"$csv\" != 1 ] || [ \"$page\" != raw ] || [ \"$units\" != base ] ||\n"
    "   [ -z \"$log\" ] || [ \"$LC_ALL\" != C ]; then\n"
    "  echo \"==ERROR== bad options: off=$off csv=$csv page=$page units=$units log=$log LC_ALL=$LC_ALL\"; exit 8\n"
    "fi\n"
    "case \"$metrics\" in *dram__bytes_read.sum*sm__throughput.avg.pct_of_peak_sustained_elapsed*"
    "launch__registers_per_thread*launch__shared_mem_per_block_static*"
    "launch__shared_mem_per_block_dynamic*launch__block_size*"
    "sm__maximum_warps_per_active_cycle_pct*) ;;\n"
    "  *) echo \"==ERROR== metrics $metrics\"; exit 7;; esac\n"
    "echo \"==PROF== Connected to process $$\" > \"$log\"\n"
    "\"$@\"; rc=$?\n"
    "if [ $rc -ne 0 ]; then echo \"==ERROR== The application returned an error code ($rc).\" >> \"$log\"; exit $rc; fi\n"
    "case \"$FAKE_NCU_MODE\" in\n"
    "  ok) cat \"$FAKE_NCU_CSV\" >> \"$log\";;\n"
    "  stdout) cat \"$FAKE_NCU_CSV\";;\n"
    "  error) echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission' >> \"$log\"; exit 1;;\n"
    "  sleep) sleep 30;;\n"
    "esac\n";

static void profile(const char *mode, const char *const *app, double timeout, bench_ncu *r)
{
    setenv("FAKE_NCU_MODE", mode, 1);
    setenv("FAKE_NCU_CSV", csv, 1);
    bench_ncu_profile(fake, app, timeout, r);
}

static void test_profile(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_ncu_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp %s", dir);
        return;
    }
    snprintf(fake, sizeof fake, "%s/ncu", dir);
    snprintf(csv, sizeof csv, "%s/sample.csv", dir);
    write_file(fake, fake_ncu, 1);
    write_file(csv, two_kernels, 0);
    setenv("LC_ALL", "de_DE.UTF-8", 1); /* the child gets LC_ALL=C all the same */

    const char *app_ok[] = {"/bin/sh", "-c", "echo the program ran; exit 0", NULL};
    bench_ncu r;
    profile("ok", app_ok, 60, &r);
    CHECK(r.state == BENCH_NCU_OK && r.kernels == 2 && r.dram_read_bytes == 1610612736.0,
          "ok: state %d, %d kernels: %s", r.state, r.kernels, r.error);
    CHECK(r.regs_per_thread == 40 && r.threads_per_block == 256, "ok: %d registers, %d threads",
          r.regs_per_thread, r.threads_per_block);
    profile("stdout", app_ok, 60, &r);
    CHECK(r.state == BENCH_NCU_OK && r.kernels == 2, "CSV on stdout: %s", r.error);

    const char *app_fail[] = {"/bin/sh", "-c",
                              "echo 'cupat bench: --ncu-child: no row 3 of table 9' >&2; exit 1",
                              NULL};
    profile("ok", app_fail, 60, &r); /* its own message, not ncu's "returned an error code" */
    CHECK(r.state == BENCH_NCU_ERROR && strstr(r.error, "ncu exited 1") &&
              strstr(r.error, "cupat bench: --ncu-child: no row 3 of table 9"),
          "failing program: '%s'", r.error);
    profile("error", app_ok, 60, &r);
    CHECK(r.state == BENCH_NCU_ERROR && strstr(r.error, "ERR_NVGPUCTRPERM"), "==ERROR==: '%s'",
          r.error);
    const char *app_silent[] = {"/bin/true", NULL};
    profile("none", app_silent, 60, &r);
    CHECK(r.state == BENCH_NCU_ERROR && strstr(r.error, "no CSV"), "no CSV: '%s'", r.error);
    double t0 = (double)time(NULL);
    profile("sleep", app_ok, 1.0, &r);
    CHECK(r.state == BENCH_NCU_ERROR && strstr(r.error, "did not finish in 1 s"), "timeout: '%s'",
          r.error);
    CHECK((double)time(NULL) - t0 < 20, "the timeout took %g s", (double)time(NULL) - t0);
    const char *app_none[] = {"/nonexistent/cupat", NULL};
    profile("ok", app_none, 60, &r);
    CHECK(r.state == BENCH_NCU_ERROR && strstr(r.error, "ncu exited"), "no program: '%s'",
          r.error);
    bench_ncu_profile("/nonexistent/ncu", app_ok, 60, &r);
    CHECK(r.state == BENCH_NCU_ERROR && strstr(r.error, "cannot run /nonexistent/ncu"),
          "no ncu: '%s'", r.error);

    /* finding it */
    char path[512], looked[512] = "";
    setenv("CUPAT_NCU", fake, 1);
    CHECK(bench_ncu_find(path, sizeof path, looked, sizeof looked) == 0 && !strcmp(path, fake),
          "$CUPAT_NCU: %s", path);
    setenv("CUPAT_NCU", "/nonexistent/ncu", 1);
    CHECK(bench_ncu_find(path, sizeof path, looked, sizeof looked) == -1 &&
              strstr(looked, "$CUPAT_NCU=/nonexistent/ncu"),
          "bad $CUPAT_NCU: %s", looked);
    unsetenv("CUPAT_NCU");
    setenv("PATH", dir, 1);
    CHECK(bench_ncu_find(path, sizeof path, looked, sizeof looked) == 0 && !strcmp(path, fake),
          "on the PATH: %s", path);
    setenv("CUPAT_NCU_TIMEOUT", "12.5", 1);
    CHECK(bench_ncu_timeout() == 12.5, "timeout %g", bench_ncu_timeout());
    setenv("CUPAT_NCU_TIMEOUT", "soon", 1);
    CHECK(bench_ncu_timeout() == BENCH_NCU_TIMEOUT_S, "bad timeout %g", bench_ncu_timeout());

    unlink(fake);
    unlink(csv);
    rmdir(dir);
    /* nothing left behind in $TMPDIR's cupat-ncu-* folders is checked by
     * the unlinks in bench_ncu_profile; a leak would show as clutter only */
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    test_sums();
    test_main_kernel();
    test_units_and_layout();
    test_malformed();
    test_limiter();
    test_profile();
    return test_finish(NULL);
}
