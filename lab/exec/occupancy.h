/* SPDX-License-Identifier: Apache-2.0 */
/* occupancy.h — the occupancy calculator of `cupat occupancy` (PMPP 4.7 and
 * 5.6, PCCP 3.2, CUDA Guide 8.2.3.1): how many blocks of a kernel fit on one
 * SM, which resource decides, and where the next cliff is.
 *
 * Two rules:
 *  - OCC_RULE_HARDWARE, what the GPU does (compute capability 3.0 and later):
 *    registers go to warps in units of reg_unit (256), and the register file
 *    is split over sub_partitions (4) that each hold whole warps; shared
 *    memory goes to blocks in units of smem_unit (128 bytes from cc 8.0, 256
 *    before), with smem_reserved (1 KiB from cc 8.0) added to each block; a
 *    block over smem_per_block must have opted in (up to smem_per_block_optin).
 *  - OCC_RULE_BOOK, the arithmetic the books do: registers per thread times
 *    threads, shared memory per block, no units, no reserve (and the rule of
 *    G80-era GPUs, which allocated registers to whole blocks).
 * Plain C, no CUDA: the same arithmetic on any machine. */
#ifndef CUPAT_LAB_OCCUPANCY_H
#define CUPAT_LAB_OCCUPANCY_H

#include <stddef.h>

typedef enum { OCC_RULE_HARDWARE = 0, OCC_RULE_BOOK = 1 } occ_rule;

typedef struct occ_device {
    const char *name; /* preset name ("h100"), or "device N" */
    const char *what; /* a line describing it */
    int cc_major, cc_minor;
    int warp_size, max_threads_per_block;
    int threads_per_sm, blocks_per_sm;
    int regs_per_sm, regs_per_block, max_regs_per_thread;
    int reg_unit, sub_partitions;
    size_t smem_per_sm, smem_per_block, smem_per_block_optin, smem_reserved, smem_unit;
    occ_rule rule;
} occ_device;

typedef struct occ_kernel {
    int threads; /* per block */
    int regs;    /* per thread (0: none) */
    size_t smem; /* per block: static + dynamic */
} occ_kernel;

enum { OCC_LIM_WARPS, OCC_LIM_BLOCKS, OCC_LIM_REGS, OCC_LIM_SMEM, OCC_NLIM };
extern const char *const occ_limit_names[OCC_NLIM]; /* "threads", "blocks", ... */

typedef struct occ_result {
    int blocks;            /* resident blocks an SM; 0: the kernel cannot launch */
    int limit[OCC_NLIM];   /* blocks each resource allows; OCC_UNLIMITED: no limit */
    int limiter;           /* the resource that decides (ties: the first) */
    int warps_per_block;   /* whole warps: a partial warp costs a warp */
    int warps, threads;    /* resident */
    double occupancy;      /* warps / (threads_per_sm / warp_size) */
    long regs_per_block;   /* registers one block is given */
    size_t smem_per_block; /* shared memory one block is given (reserve included) */
    int optin;             /* the block needs more than smem_per_block (opt-in) */
    char why[200];         /* blocks == 0: the limit the kernel breaks */
} occ_result;

#define OCC_UNLIMITED 0x7fffffff

/* 0 and *r filled (r->blocks may be 0, r->why says why); -1 when d or k is
 * not a device or kernel description at all (r->why says what). */
int occ_compute(const occ_device *d, const occ_kernel *k, occ_result *r);

/* Threads an SM keeps resident when only the registers count (no block
 * size): PMPP 4.7's "65,536 / 40 = 1,638" under the book's rule, whole warps
 * in whole sub-partitions under the hardware's. */
int occ_threads_by_regs(const occ_device *d, int regs);

/* The cliff of each resource: the smallest increase (registers per thread,
 * bytes of shared memory per block) that loses a block; 0 when none within
 * the device's limits. */
int occ_regs_to_cliff(const occ_device *d, const occ_kernel *k);
size_t occ_smem_to_cliff(const occ_device *d, const occ_kernel *k);

/* The presets (h100, a100, rtx2080ti, k40c, g80, pmpp, ...). */
const occ_device *occ_presets(size_t *count);
const occ_device *occ_preset(const char *name); /* NULL if unknown */

/* The books' worked examples, each with the book's answer. */
typedef struct occ_example {
    const char *id, *source; /* INVENTORY id, book section */
    const char *text;        /* the example as the book states it */
    occ_device device;       /* the book's machine */
    occ_kernel kernel;
    int by_regs_only;        /* the book counts threads the registers allow, no block size */
    int book_blocks;         /* the book's answer: blocks (or threads when by_regs_only); -1 none */
    double book_occupancy;   /* the book's occupancy (0..1), or < 0 when it gives none */
    const char *book_answer; /* as printed */
    const char *comment;     /* where the book and the hardware rule part, and why */
    int want;                /* ours under the machine's own rule (blocks, or threads) */
    int want_hw;             /* ours under the hardware rule of cc 8.0 on the same machine
                                (occ_as_hardware); -1: the machine's own rule is the only one */
} occ_example;
const occ_example *occ_examples(size_t *count);
/* The book's machine as a GPU of cc 8.0 would allocate on it: registers to
 * warps in units of 256 over 4 sub-partitions, shared memory in units of 128
 * bytes plus a 1 KiB reserve a block. */
occ_device occ_as_hardware(const occ_device *d);

/* The live device's figures (cudaGetDeviceProperties; reg_unit and
 * sub_partitions by compute capability as occupancy.h describes). 0, or -1
 * with why filled (no device, or the runtime's error). what_buf holds the
 * description d->what points to. */
int occ_device_query(int device, occ_device *d, char *what_buf, size_t what_len, char *why, size_t why_len);

#endif
