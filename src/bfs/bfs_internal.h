/* SPDX-License-Identifier: Apache-2.0 */
/* bfs_internal.h — what the graph handle and the "bfs" ladder share:
 *   graph.c       handles: edge lists, CSR triples, files; build (kernel 1)
 *   graph_gen.c   the Graph500 Kronecker generator
 *   bfs.c         cupat_bfs / cupat_bfs_multi: checks, the ladder, dispatch;
 *                 the Graph500 validation (cupat_bfs_check_result)
 *   bfs_cpu.c     serial reference, OpenMP top-down and direction-optimizing
 *   bfs_common.cu work buffers, initialization, the level counters
 *   bfs_book.cu   PMPP ch. 15 rungs: push, pull, edge-centric, queue, privatized
 *   bfs_fast.cu   beyond the book: warp-cooperative expansion, scan
 *                 compaction, edge-balanced expansion (a scan of the
 *                 frontier's degrees), direction-optimizing (the CUDA
 *                 default)
 * C interface; the .cu files include it inside extern "C". */
#ifndef CUPAT_BFS_INTERNAL_H
#define CUPAT_BFS_INTERNAL_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest vertex count: ids, levels and parents are int32_t, and -1 is
 * "none". */
#define BFS_MAX_VERTICES ((size_t)INT32_MAX - 1)

/* The "bfs" ladder in registry order (bfs.c's table follows it). */
typedef enum bfs_rung {
    /* PMPP ch. 15 */
    BR_PUSH_VERTEX = 0, /* 15.3: a thread per vertex, frontier vertices push  */
    BR_PULL_VERTEX,     /* 15.3: a thread per unvisited vertex pulls          */
    BR_EDGE_CENTRIC,    /* 15.4: a thread per edge                            */
    BR_QUEUE,           /* 15.5: frontier queues, global atomics              */
    BR_PRIVATIZED,      /* 15.6: block-level queues in shared memory          */
    BR_SMALL_FRONTIER,  /* 15.7: small frontiers, one block, many levels      */
    /* beyond the book */
    BR_WARP_COOP,       /* load balancing: warps expand long lists together   */
    BR_SCAN_COMPACT,    /* benign-race flags, the queue by cupat_select       */
    BR_EDGE_BALANCED,   /* the frontier's edges split evenly (degree scan)     */
    BR_DIRECTION_OPT,   /* Beamer 2012: top-down / bottom-up (CUDA default)   */
    /* CPU backend */
    BR_CPU_SERIAL,      /* one queue: the reference                            */
    BR_CPU_QUEUE,       /* OpenMP top-down, level-synchronous                  */
    BR_CPU_DIRECTION_OPT, /* OpenMP direction-optimizing (CPU default)         */
    BR_COUNT
} bfs_rung;

/* Beamer's switch (2012, section 4): top-down -> bottom-up when the
 * frontier's edges m_f exceed m_u / ALPHA (m_u: edges of the unvisited
 * vertices); back to top-down when the frontier has fewer than n / BETA
 * vertices and shrinks. The paper's values; CUPAT_BFS_ALPHA / CUPAT_BFS_BETA
 * in the environment override them (for tuning runs: docs/bfs.md). */
#define BFS_ALPHA 14
#define BFS_BETA 24

/* Device work buffers a graph keeps after its first search (CUDA). */
typedef struct bfs_work {
    int32_t *queue[2];  /* n each                                      */
    void *qoff[2];      /* n each (u32 or u64): the queues' out-degrees,
                         * scanned in place into edge offsets
                         * (edge_balanced, direction_opt)               */
    uint8_t *flags;     /* n: scan_compact's next-frontier flags        */
    int32_t *iota;      /* n: 0 .. n-1, the ids cupat_select compacts   */
    uint32_t *bitmap[2]; /* ceil(n / 32) words each: direction_opt     */
    int32_t *edge_src;  /* m: the source of each CSR entry (edge_centric) */
    void *ctrl;         /* the level counters                           */
    void *ctrl_host;    /* pinned copy of them                          */
} bfs_work;

struct cupat_graph {
    cupat_backend backend;
    size_t n, m;            /* vertices, CSR entries                        */
    int undirected;
    uint64_t *row_ptr;      /* backend memory (host memory on the CPU)      */
    int32_t *col;
    uint64_t *t_row_ptr;    /* transpose (in-edges); == row_ptr undirected  */
    int32_t *t_col;
    uint64_t *h_row_ptr;    /* host copies (== the above on the CPU)        */
    int32_t *h_col;
    uint64_t *h_t_row_ptr;  /* host transpose (CPU backend only, else NULL) */
    int32_t *h_t_col;
    uint64_t *tuples;       /* host: input tuples (u, v) per u (TEPS)       */
    cupat_graph_info info;
    bfs_work work;
};

/* A checked search: sources unique and in range, levels / parents backend
 * memory of n elements (parents never NULL here). */
typedef struct bfs_req {
    cupat_graph *g;
    int rung;
    size_t nsrc;
    const int32_t *src; /* host */
    int32_t *levels, *parents;
} bfs_req;

/* Build a graph from nt tuples edges[2i] -> edges[2i + 1] (host, id_type
 * ids already checked to lie in [0, n)). */
cupat_status cupat__graph_build(cupat_ctx *ctx, const char *fn, cupat_graph **out, size_t n,
                                size_t nt, cupat_type id_type, const void *edges,
                                unsigned flags);

/* g non-NULL and made on ctx's backend. */
cupat_status cupat__graph_check(cupat_ctx *ctx, const char *fn, const cupat_graph *g);

cupat_status cupat__bfs_cpu(cupat_ctx *ctx, const bfs_req *r);
/* Every CUDA rung (bfs_book.cu for the book's, bfs_fast.cu for the rest). */
cupat_status cupat__bfs_cuda_book(cupat_ctx *ctx, const bfs_req *r);
cupat_status cupat__bfs_cuda_fast(cupat_ctx *ctx, const bfs_req *r);
/* bfs_common.cu: the level counters, read back each level. */
typedef struct bfs_ctrl {
    unsigned int count;       /* next frontier's vertices (or "changed")  */
    unsigned int levels;      /* small_frontier: the levels a launch completed */
    unsigned long long edges; /* next frontier's out-edges                */
} bfs_ctrl;
/* levels, parents := -1; each source s: level 0, parent s; queue (may be
 * NULL) := the sources. */
cupat_status cupat__bfs_cuda_init(cupat_ctx *ctx, const bfs_req *r, int32_t *queue);
/* Allocate what the rung needs in g->work (once per graph). */
cupat_status cupat__bfs_cuda_work(cupat_ctx *ctx, cupat_graph *g, int rung);
cupat_status cupat__bfs_ctrl_clear(cupat_ctx *ctx, cupat_graph *g);
cupat_status cupat__bfs_ctrl_read(cupat_ctx *ctx, cupat_graph *g, bfs_ctrl *out);
void cupat__bfs_cuda_free(cupat_graph *g);
/* Grid for `work` items, at most 16 blocks an SM (grid-stride loops). */
unsigned cupat__bfs_grid(const cupat_ctx *ctx, size_t work, unsigned block);

#ifdef __cplusplus
}
#endif
#endif
