/* SPDX-License-Identifier: Apache-2.0 */
/* exec.h — the execution-model lab (`cupat lab exec`, issue 15): divergence
 * (PCCP 3.2, PMPP 4.5), partial warps and warp formation in 2D blocks (PCCP
 * 3.2, PMPP 4.4), block placement on SMs (PMPP 4.2-4.3), __syncthreads cost
 * (Guide 8.4.3), the register cliff across 64 -> 65 registers (Guide 8.2.3,
 * PCCP 4.1, lecture "SM Resources"), latencies by pointer chase and dependent
 * FMA, the ILP x TLP and bytes-in-flight sweeps (Little's law: PCCP 3.2,
 * Guide 8.2.3, lecture), the occupancy APIs (PMPP 5.6, Guide 8.2.3.1), and
 * dynamic parallelism (PCCP 3.6, PMPP 21).
 * Not library API: linked into the CLI and the tests (lab/CMakeLists.txt).
 * Every run function checks its arguments first (a message naming the bad
 * one), then needs the CUDA backend (CUPAT_ERROR_NOT_SUPPORTED on the CPU).
 * A run's `ok` is its output checked against the host model (exec_work.h);
 * `msg` says the first difference. */
#ifndef CUPAT_LAB_EXEC_H
#define CUPAT_LAB_EXEC_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_exec_timed {
    double ms;    /* median of the timed launches (CUDA events) */
    int ok;       /* output equals the host model */
    char msg[160];
} lab_exec_timed;

/* ----------------------------------------------------------- divergence -- */

enum {
    LAB_DIV_WARP,       /* PCCP goodPractice / mathKernel2: (tid / 32) % 2      */
    LAB_DIV_PRED,       /* PCCP mathKernel1: tid % 2, short: predicated         */
    LAB_DIV_SPLIT,      /* PCCP willCertainlyDiverge / mathKernel3: two ifs      */
    LAB_DIV_LONG_WARP,  /* long bodies (LCG / xorshift loops), warp-granular     */
    LAB_DIV_LONG_ODD,   /* the same bodies on tid % 2: both run, serially       */
    LAB_DIV_WAY32_WARP, /* 32 long paths chosen by (tid / 32) % 32: no divergence */
    LAB_DIV_WAY32_LANE, /* the same chosen by tid % 32: 32 paths a warp (PMPP 4.5) */
    LAB_DIV_NKERNELS
};
const char *lab_exec_div_name(int k); /* NULL past the end */
const char *lab_exec_div_code(int k); /* the branch as written */
/* What thread tid writes (the book kernels: the bits of 100.0f or 200.0f). */
uint32_t lab_exec_div_expected(int k, uint32_t tid, int iters);
/* n threads (a multiple of 256, 256 .. 2^26) run kernel k; the long bodies
 * loop `iters` times (1 .. 1 << 16); reps timed launches (1 .. 1000). */
cupat_status lab_exec_divergence(cupat_ctx *ctx, int k, unsigned n, int iters, int reps,
                                 lab_exec_timed *out);

/* ------------------------------------------------------- partial warps -- */

typedef struct lab_exec_partial {
    int threads, warps_per_block; /* ceil(threads / 32) */
    int resident_blocks;          /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
    double ms;                    /* blocks x threads threads, each `iters` LCG steps */
    int ok;                       /* outputs, and each thread saw __activemask() of its warp's size */
    char msg[160];
} lab_exec_partial;
/* blocks of `threads` (1 .. 1024) threads; blocks 1 .. 2^20. */
cupat_status lab_exec_partial_warps(cupat_ctx *ctx, int threads, unsigned blocks, int iters, int reps,
                                    lab_exec_partial *out);
/* Lanes active in the warp of thread t of a block of `threads` (host model). */
int lab_exec_warp_lanes(int threads, int t);

/* How a 3D block forms warps: for thread (x, y, z), at index x + bx (y + by z)
 * of the arrays: its %laneid, the linear index of lane 0 of its warp (by a
 * shuffle: the hardware's grouping), and the lanes __activemask() shows. */
cupat_status lab_exec_warp_map(cupat_ctx *ctx, int bx, int by, int bz, uint32_t *lane, uint32_t *leader,
                               uint32_t *active);

/* ---------------------------------------------------------- placement -- */

typedef struct lab_exec_place {
    unsigned blocks;
    uint32_t *smid;      /* blocks entries: the SM that ran the block (%smid) */
    uint32_t *ticket;    /* the order blocks started (an atomic counter)      */
    int nsmid;           /* %nsmid: SM ids are below it                       */
    int sm_count;        /* cudaDevAttrMultiProcessorCount                    */
} lab_exec_place;
/* blocks (1 .. 2^20) of `threads` threads, each spinning spin_ns (0 .. 1e6)
 * so that they overlap; p->smid and p->ticket are host arrays of `blocks`. */
cupat_status lab_exec_placement(cupat_ctx *ctx, unsigned blocks, int threads, unsigned spin_ns,
                                lab_exec_place *p);

/* --------------------------------------------------------- __syncthreads -- */

typedef struct lab_exec_barrier {
    double cycles;      /* clock64 cycles per __syncthreads, mean over the blocks */
    double per_clock;   /* thread arrivals per clock per SM: threads x blocks_per_sm / cycles */
    int blocks_per_sm;  /* resident (runtime) */
    int ok;
    char msg[160];
} lab_exec_barrier;
/* blocks_per_sm x SMs blocks of `threads` (32 .. 1024, multiple of 32), each
 * thread passing `iters` (1 .. 1 << 20) barriers. */
cupat_status lab_exec_barrier_cost(cupat_ctx *ctx, int threads, int blocks_per_sm, int iters,
                                   lab_exec_barrier *out);

/* ------------------------------------------------------------- latency -- */

enum { LAB_LAT_L1, LAB_LAT_L2, LAB_LAT_DRAM, LAB_LAT_SHARED, LAB_LAT_CONST, LAB_LAT_NWHERE };
const char *lab_exec_lat_name(int where);
#define LAB_LAT_LINE 128      /* bytes between chain entries in global memory */
#define LAB_LAT_SHARED_MAX 49152
#define LAB_LAT_CONST_MAX 16384
typedef struct lab_exec_latency {
    double cycles, ns; /* per dependent load (clock64; ns at the SM clock) */
    int ok;            /* the chase ended where the host's walk ends */
    char msg[160];
} lab_exec_latency;
/* One thread follows `steps` (1 .. 1 << 20) links of a random single cycle
 * (Sattolo) through `bytes` of the memory `where`: global memory one link a
 * 128-byte line (L1: plain loads, warmed; L2: ld.global.cg, warmed; DRAM: no
 * warm-up, bytes >> the L2), shared and constant memory one link a word
 * (bytes <= LAB_LAT_SHARED_MAX / LAB_LAT_CONST_MAX). */
cupat_status lab_exec_chase(cupat_ctx *ctx, int where, size_t bytes, int steps, lab_exec_latency *out);
/* The host model: Sattolo's single cycle over n (deterministic, seed), and
 * the index reached from 0 after `steps` links. */
void lab_exec_sattolo(uint32_t *next, uint32_t n, uint64_t seed);

/* Dependent FMA latency: x = fma(x, a, b), `steps` (1 .. 1 << 20) times in one
 * warp; out->ok compares x with the host's fmaf chain. */
cupat_status lab_exec_fma_latency(cupat_ctx *ctx, int steps, lab_exec_latency *out);

typedef struct lab_exec_rate {
    double ms, gflops, gbs; /* median; FP32 rate or bytes read per second / 1e9 */
    int blocks, threads;    /* the launch */
    int resident_warps;     /* warps an SM can hold of this launch (runtime) */
    int ok;
    char msg[160];
} lab_exec_rate;
/* The sweeps' kernels: k_ilp<k> (k = ILP) and k_mlp<k> (k = U). A row of
 * `warps` warps an SM launches blocks of up to 16 warps (fewer: one block of
 * all of them); *fit is the warps an SM holds of that launch (the runtime's
 * resident blocks x warps a block), *regs the kernel's registers a thread.
 * k_mlp<8> keeps 8 x 16 bytes in registers: 34 registers, allocated as 40, so
 * 3 blocks of 16 warps (48 warps), not 4, fit an SM of 64K registers. */
enum { LAB_SWEEP_ILP, LAB_SWEEP_MLP };
cupat_status lab_exec_sweep_fit(cupat_ctx *ctx, int what, int k, int warps, int *fit, int *regs);
/* ILP x TLP: `warps` warps an SM (1 .. 15, or a multiple of 16 up to 64),
 * each thread `ilp` (1, 2, 4, 8) independent FMA chains of `iters` (1 ..
 * 1 << 20). A row whose warps do not fit an SM (lab_exec_sweep_fit) is
 * refused with CUPAT_ERROR_NOT_SUPPORTED: it would run in more than one wave
 * and measure fewer warps than it names. */
cupat_status lab_exec_ilp(cupat_ctx *ctx, int ilp, int warps, int iters, int reps, lab_exec_rate *out);
/* Bytes in flight: `warps` warps an SM as above (refused where they do not
 * fit), each thread `unroll` (1, 2, 4, 8) independent 16-byte loads before it
 * uses them, over n (a multiple of 4 * 32, 1 .. 2^30) uint32 words; the sum
 * is checked. */
cupat_status lab_exec_mlp(cupat_ctx *ctx, int unroll, int warps, size_t n, int reps, lab_exec_rate *out);
/* Host model of the words lab_exec_mlp reads (exec_mlp_word) summed mod 2^32. */
uint32_t lab_exec_mlp_sum(size_t n);

/* Little's law: warps an SM needs to issue every cycle when each warp has
 * `ilp` independent instructions of `latency` cycles and the SM issues
 * `issue` warp-instructions a cycle (A10: 200 / (4 x 4) = 13 warps with 4
 * independent instructions of 4 cycles each and a 200-cycle load). */
double lab_exec_little_warps(double latency, double issue, int ilp);
/* Bytes an SM must keep in flight: bandwidth (GB/s) x latency (ns) / SMs. */
double lab_exec_little_bytes(double gbs, double latency_ns, int sms);

/* ------------------------------------------------------- register cliff -- */

enum {
    LAB_CLIFF_FREE,        /* no bound: what the compiler picks          */
    LAB_CLIFF_LB_512_1,    /* __launch_bounds__(512, 1): up to 128 regs   */
    LAB_CLIFF_LB_512_2,    /* __launch_bounds__(512, 2): at most 64 regs  */
    LAB_CLIFF_MAXNREG_72,  /* __maxnreg__(72)                              */
    LAB_CLIFF_MAXNREG_65,  /* __maxnreg__(65): one past the cliff          */
    LAB_CLIFF_MAXNREG_64,  /* __maxnreg__(64): the cliff                   */
    LAB_CLIFF_MAXNREG_40,  /* __maxnreg__(40): spills                      */
    LAB_CLIFF_MAXRREG_64,  /* -maxrregcount=64 on its file                 */
    LAB_CLIFF_NVARIANTS
};
const char *lab_exec_cliff_name(int v);
#define LAB_CLIFF_THREADS 512
typedef struct lab_exec_cliff {
    int regs;              /* cudaFuncGetAttributes numRegs */
    size_t local_bytes;    /* localSizeBytes: spills (and stack) */
    int max_threads;       /* maxThreadsPerBlock */
    int blocks_per_sm;     /* of 512 threads (runtime) */
    unsigned blocks;       /* launched: blocks_per_sm x SMs (one full wave) */
    double occupancy;      /* blocks x 16 warps / max warps */
    double ms, gbs;        /* streaming n float4 through 60 FMA chains */
    int ok;
    char msg[160];
} lab_exec_cliff;
/* n float4 (a multiple of 512, up to 2^26); ok: every sampled thread's sum
 * equals the host's bit for bit. */
cupat_status lab_exec_cliff_run(cupat_ctx *ctx, int v, size_t n, int reps, lab_exec_cliff *out);

/* ------------------------------------------------------------ occupancy -- */

enum { LAB_OCC_STREAM, LAB_OCC_CLIFF, LAB_OCC_SMEM, LAB_OCC_NKERNELS };
const char *lab_exec_occ_name(int k);
typedef struct lab_exec_kinfo {
    const char *name;
    int regs, max_threads;
    size_t static_smem, local_bytes;
    size_t dyn_smem; /* what the lab launches it with */
} lab_exec_kinfo;
cupat_status lab_exec_occ_info(cupat_ctx *ctx, int k, lab_exec_kinfo *info);
/* cudaOccupancyMaxPotentialBlockSize of kernel k. */
cupat_status lab_exec_occ_potential(cupat_ctx *ctx, int k, int *min_grid, int *block);
/* cudaOccupancyMaxActiveBlocksPerMultiprocessor of kernel k at `threads`. */
cupat_status lab_exec_occ_active(cupat_ctx *ctx, int k, int threads, int *blocks);
/* Kernel k over n (a multiple of 1024, up to 2^28) elements with blocks of
 * `threads` (32 .. 1024, multiple of 32), as many blocks as are resident. */
cupat_status lab_exec_occ_sweep(cupat_ctx *ctx, int k, int threads, size_t n, int reps, lab_exec_timed *out);

/* ----------------------------------------------------------------- gemm -- */

/* One rung of the gemm ladder (cupat_set_variant) on m x n x k f32, row
 * major, inputs in [-1, 1): the median ms and 64 sampled outputs against the
 * host in double (|err| <= k eps sum |a b| + tiny). */
cupat_status lab_exec_gemm_rung(cupat_ctx *ctx, const char *rung, size_t m, size_t n, size_t k, int reps,
                                lab_exec_timed *out);

/* --------------------------------------------------- dynamic parallelism -- */

#define LAB_CDP_MAX_DEPTH 32
/* PCCP's nestedHelloWorld: `blocks` (1 .. 8) blocks of `threads` (a power of
 * two, 1 .. 64); each block's thread 0 launches one block of half the
 * threads, down to one. counts[d] (LAB_CDP_MAX_DEPTH entries): threads that
 * ran at depth d. print: device printf as the book does. */
cupat_status lab_exec_cdp_hello(cupat_ctx *ctx, int blocks, int threads, int print, int *counts);
/* The host model of counts. */
void lab_exec_cdp_hello_expected(int blocks, int threads, int *counts);

/* One thread launches a child of one thread, which launches one, ...:
 * *reached the deepest level that ran (the top grid is 0), *err the first
 * failed launch's cudaError_t (0: none), up to `depth` (1 .. 30) levels. */
cupat_status lab_exec_cdp_depth(cupat_ctx *ctx, int depth, int *reached, int *err);

typedef struct lab_exec_pending {
    size_t limit_set, limit_read; /* cudaLimitDevRuntimePendingLaunchCount (0: left as is) */
    unsigned attempted, launched, failed, ran;
    int first_err;                /* cudaError_t of the first failed launch */
} lab_exec_pending;
/* parents x 128 threads each launch one child (spinning spin_ns) into the
 * fire-and-forget stream; the limit is restored afterwards. */
cupat_status lab_exec_cdp_pending(cupat_ctx *ctx, size_t limit, unsigned parents, unsigned spin_ns,
                                  lab_exec_pending *out);

/* Mandelbrot, escape-time dwell of a size x size image of [-1.5, 0.5] x [-1, 1]:
 * flat (one thread a pixel) or Mariani-Silver (a block a square: equal dwell
 * on its border fills it, else four x four children by dynamic parallelism
 * down to squares of LAB_MS_MIN_SIZE, then per pixel). */
enum { LAB_MANDEL_FLAT, LAB_MANDEL_CDP };
#define LAB_MS_INIT_SUBDIV 8
#define LAB_MS_SUBDIV 4
#define LAB_MS_MIN_SIZE 16
#define LAB_MS_MAX_DEPTH 5
typedef struct lab_exec_mandel_geom {
    int size, max_dwell;
    float x0, y0, dx, dy;
} lab_exec_mandel_geom;
/* size a power of two, 128 .. 16384; max_dwell 1 .. 1 << 16. */
int lab_exec_mandel_geometry(int size, int max_dwell, lab_exec_mandel_geom *g);
/* dwell: size x size ints (host); *ms: median of reps; *launches: child
 * grids launched (CDP; the last run); *err: a failed device launch. */
cupat_status lab_exec_mandel(cupat_ctx *ctx, int method, int size, int max_dwell, int reps, int *dwell,
                             double *ms, unsigned *launches);
/* The host model: the same algorithm, the same decisions. */
void lab_exec_mandel_host(int method, const lab_exec_mandel_geom *g, int *dwell);

/* ------------------------------------------------ instruction throughput -- */

/* The CUDA Guide's 8.4.1 table of native arithmetic throughput (results a
 * clock an SM), measured for a subset: each op is one step of TP_CHAINS
 * independent chains a thread (exec_tp.h), as many 256-thread blocks as an
 * SM holds, every SM timed by its own clock64. */
enum {
    LAB_TP_FADD,  /* __fadd_rn: FADD                                   */
    LAB_TP_FMUL,  /* __fmul_rn: FMUL                                   */
    LAB_TP_FFMA,  /* __fmaf_rn: FFMA                                   */
    LAB_TP_DFMA,  /* __fma_rn (double): DFMA                           */
    LAB_TP_HFMA2, /* __hfma2: HFMA2, two results a lane                */
    LAB_TP_IADD,  /* a + b: IADD3                                      */
    LAB_TP_IMAD,  /* a * b + k: IMAD (sm_90 multiplies with IMAD)      */
    LAB_TP_MUL24, /* __umul24: not native since Fermi                  */
    LAB_TP_SHF,   /* __funnelshift_l(a, a, b): a rotate, one SHF       */
    LAB_TP_POPC,  /* __popc(a) ^ b                                     */
    LAB_TP_CLZ,   /* __clz(a) ^ b                                      */
    LAB_TP_BREV,  /* __brev(a) ^ b                                     */
    LAB_TP_RSQRT, /* rsqrt.approx.ftz.f32: MUFU.RSQ                    */
    LAB_TP_SIN,   /* sin.approx.ftz.f32 (__sinf): MUFU.SIN             */
    LAB_TP_EX2,   /* ex2.approx.ftz.f32 (exp2 intrinsic): MUFU.EX2     */
    LAB_TP_SHFL,  /* __shfl_xor_sync                                   */
    LAB_TP_VOTE,  /* __ballot_sync(a & 1) ^ b                          */
    LAB_TP_NOPS
};
typedef struct lab_exec_tp_op {
    const char *name;  /* "fp32 fma" */
    const char *step;  /* one step of a chain, as written */
    int results;       /* results an instruction gives a lane: 2 for half2, else 1 */
    int guide;         /* the Guide's table for cc 9.0 (results / clock / SM); 0: not known here */
    const char *extra; /* what else a step issues beside the instruction measured ("" if nothing) */
} lab_exec_tp_op;
const lab_exec_tp_op *lab_exec_tp_op_info(int op); /* NULL past the end */
typedef struct lab_exec_tp {
    double per_clk_sm; /* results a clock an SM: each SM's results / its busy cycles, the median SM, the median rep */
    double ms;         /* the median launch */
    int blocks_per_sm; /* of 256 threads (the runtime) */
    int ok;            /* three sampled warps equal the host model (exact; the approximate functions within bounds) */
    char msg[160];
} lab_exec_tp;
/* iters (1 .. 1 << 16) loop iterations of TP_UNROLL steps; reps 1 .. 1000. */
cupat_status lab_exec_throughput(cupat_ctx *ctx, int op, int iters, int reps, lab_exec_tp *out);
/* The host model: warp w (threads 32 w .. 32 w + 31) after iters
 * iterations, out[lane * TP_CHAINS + j] the bits of chain j (a double's 64,
 * the others' 32). The approximate functions (RSQRT, SIN, EX2) follow the
 * exact function in double, rounded to float at the end. */
void lab_exec_tp_host(int op, uint32_t warp, int iters, uint64_t *out);

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_exec_div(cupat_ctx *ctx, int k, unsigned n, int iters, int reps, uint32_t *d_out,
                                 float *times);
cupat_status cupat__lab_exec_partial(cupat_ctx *ctx, int threads, unsigned blocks, int iters, int reps,
                                     uint32_t *d_out, uint32_t *d_active, float *times, int *resident);
cupat_status cupat__lab_exec_warp_map(cupat_ctx *ctx, int bx, int by, int bz, uint32_t *d);
cupat_status cupat__lab_exec_place(cupat_ctx *ctx, unsigned blocks, int threads, unsigned spin_ns,
                                   uint32_t *d_smid, uint32_t *d_ticket, int *nsmid);
cupat_status cupat__lab_exec_barrier(cupat_ctx *ctx, int threads, unsigned blocks, int iters,
                                     unsigned long long *d_cycles, int *resident);
/* h_result[0] the index reached, h_result[1] the cycles of the timed steps */
cupat_status cupat__lab_exec_chase(cupat_ctx *ctx, int where, const uint32_t *h_next, uint32_t n, int steps,
                                   unsigned long long *h_result);
cupat_status cupat__lab_exec_fma(cupat_ctx *ctx, int steps, float a, float b, float *h_x,
                                 unsigned long long *h_cycles);
cupat_status cupat__lab_exec_ilp(cupat_ctx *ctx, int ilp, int blocks, int threads, int iters, float a, float b,
                                 int reps, float *d_out, float *times);
/* blocks of `threads` an SM holds of k_ilp<k> / k_mlp<k>; its registers */
cupat_status cupat__lab_exec_sweep_fit(cupat_ctx *ctx, int what, int k, int threads, int *resident, int *regs);
cupat_status cupat__lab_exec_mlp_fill(cupat_ctx *ctx, uint32_t *d, size_t n);
cupat_status cupat__lab_exec_mlp(cupat_ctx *ctx, int unroll, int blocks, int threads, const uint32_t *d,
                                 size_t n, int reps, uint32_t *d_sum, float *times);
cupat_status cupat__lab_exec_cliff_fill(cupat_ctx *ctx, float *d, size_t nfloats);
/* d_out: one float a thread of the launch (at most SMs x 2048) */
cupat_status cupat__lab_exec_cliff(cupat_ctx *ctx, int v, const float *d_in, size_t n4, int reps, float *d_out,
                                   float *times, lab_exec_cliff *attr);
cupat_status cupat__lab_exec_cliff_maxrreg(cupat_ctx *ctx, const float *d_in, size_t n4, int reps, float *d_out,
                                           float *times, lab_exec_cliff *attr);
cupat_status cupat__lab_exec_occ_info(cupat_ctx *ctx, int k, lab_exec_kinfo *info);
cupat_status cupat__lab_exec_occ_potential(cupat_ctx *ctx, int k, int *min_grid, int *block);
cupat_status cupat__lab_exec_occ_active(cupat_ctx *ctx, int k, int threads, int *blocks);
/* d_in: n floats; d_out: n floats (the cliff kernel: one a thread) */
cupat_status cupat__lab_exec_occ_run(cupat_ctx *ctx, int k, int threads, unsigned blocks, const float *d_in,
                                     float *d_out, size_t n, int reps, float *times);
/* exec_cdp.cu: relocatable device code in its own shared library, plain
 * CUDA (no libcupat): each returns a cudaError_t (0: success) and names the
 * failing call in *what; stream is a cudaStream_t. */
int lab_exec_cdp_k_hello(void *stream, int blocks, int threads, int print, int *d_counts, const char **what);
int lab_exec_cdp_k_depth(void *stream, int depth, int *d_state, const char **what);
int lab_exec_cdp_k_pending(void *stream, size_t limit, unsigned parents, unsigned spin_ns, unsigned *d_state,
                           size_t *limit_read, const char **what);
/* raise the pending-launch limit to 32768 (kept) before the CDP runs */
int lab_exec_cdp_k_mandel_prepare(const char **what);
/* one image; CDP: d_state[0] child grids launched, d_state[1] a failed launch */
int lab_exec_cdp_k_mandel(void *stream, int method, const lab_exec_mandel_geom *g, int *d_dwell, unsigned *d_state,
                          const char **what);
/* exec_throughput.cu: op over as many 256-thread blocks as an SM holds,
 * one untimed launch then reps; per_clk[r] rep r's results / clock / SM;
 * times[r] its ms; warps[0..3) the sampled warps (the first two, the last),
 * h_sample[k * 32 * TP_CHAINS ..] warp warps[k]'s values. */
cupat_status cupat__lab_exec_tp(cupat_ctx *ctx, int op, int iters, int reps, uint32_t warps[3], uint64_t *h_sample,
                                double *per_clk, float *times, int *blocks_per_sm);
/* timing helper shared by the .cu files: reps + 1 launches of fn(arg), the
 * first untimed; times[r] the ms of launch r + 1. */
typedef cupat_status (*lab_exec_launch_fn)(cupat_ctx *ctx, void *arg);
cupat_status cupat__lab_exec_time(cupat_ctx *ctx, int reps, lab_exec_launch_fn fn, void *arg, float *times);

#ifdef __cplusplus
}
#endif
#endif
