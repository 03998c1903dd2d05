/* SPDX-License-Identifier: Apache-2.0 */
/* dist_internal.h — what the files of libcupat_dist share: the communicator
 * and the one bulk-data primitive every distributed pattern is built on
 * (cupat__dist_exchange: point-to-point transfers with several peers at
 * once). Small host metadata (counts, samples, partial results) always goes
 * through MPI on the communicator's own MPI_Comm; bulk data goes through the
 * transport. */
#ifndef CUPAT_DIST_INTERNAL_H
#define CUPAT_DIST_INTERNAL_H

#include "cupat_dist.h"
#include "internal.h"

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DIST_BUFFERS 4

typedef enum dist_transport {
    DIST_MPI = 0,        /* CPU context: host buffers straight to MPI            */
    DIST_MPI_STAGED = 1, /* CUDA context: device data through pinned host memory */
    DIST_NCCL = 2        /* CUDA context: device buffers through NCCL            */
} dist_transport;

/* Most ranks the direct (IPC) all-reduce takes. */
#define DIST_IPC_MAX_RANKS 8
/* A chunk: what one block pushes and combines at a time, one flag each. */
#define DIST_IPC_CHUNK ((size_t)32768)
/* Chunks (flags) a slot holds at most; a slot's largest size. */
#define DIST_IPC_CHUNKS 2048
#define DIST_IPC_SLOT_MAX (DIST_IPC_CHUNK * DIST_IPC_CHUNKS)

/* A block of device memory every rank owns one of and every other rank maps
 * (CUDA IPC; only where c->ipc). Library-owned: never the user's memory. */
typedef struct dist_shared {
    void *mem;                          /* own (cudaMalloc), zeroed when made */
    size_t bytes;                       /* its size: the same on every rank */
    void *peer[DIST_IPC_MAX_RANKS];     /* rank r's block, mapped here */
} dist_shared;
enum { DIST_SHARED_ALLREDUCE = 0, DIST_SHARED_SORT = 1, DIST_SHARED_BLOCKS = 2 };

struct cupat_comm {
    cupat_ctx *ctx;
    MPI_Comm mpi; /* duplicated from the caller's, errors returned */
    int rank, size;
    dist_transport transport;
    void *nccl; /* ncclComm_t (DIST_NCCL) */
    /* backend buffers kept between calls (grow-only; cupat_comm_destroy
     * frees them): the sort's sorted run and what arrives, so a call of
     * the same size allocates nothing but its output */
    void *buf[DIST_BUFFERS];
    size_t buf_bytes[DIST_BUFFERS];
    /* pinned host buffers of the staged transport (kept: freeing pinned
     * memory waits for the whole device) */
    void *stage[2];
    size_t stage_bytes[2];
    /* a second stream and two events (CUDA; made at first use): work that
     * overlaps the context's stream, e.g. the sort's exchange */
    cudaStream_t side;
    cudaEvent_t ev[2];
    /* phase timing for the lab (cupat lab multi): off unless profile is
     * set; then each phase mark waits for the stream and adds the wall time
     * since the previous mark to phase_ms (host clock, milliseconds) */
    int profile;
    double phase_ms[8], phase_t0;
    /* CUDA IPC between the ranks' devices (one node, peer access between
     * every pair): the all-reduce pushes each rank's data into inboxes in
     * the peers' library-owned blocks, mapped once (dist_ipc.c) */
    int ipc;
    int ipc_grid;                           /* blocks a round, the same on every rank */
    dist_shared shared[DIST_SHARED_BLOCKS]; /* the all-reduce's inboxes, the sort's arrivals */
    unsigned long long ipc_epoch;           /* rounds so far: each round's flag value */
};

/* Tests: a smaller slot (bytes; 0: as large as the call needs up to
 * DIST_IPC_SLOT_MAX / (p - 1)), so that small calls take several rounds. */
extern size_t cupat__dist_ipc_slot_cap;

/* Decide c->ipc (collective: every rank learns the same answer). */
cupat_status cupat__dist_ipc_init(cupat_comm *c, const char *fn);
/* Unmap the peers' shared blocks and free ours (collective). */
void cupat__dist_ipc_close(cupat_comm *c);
/* c->shared[i] of at least `bytes` on every rank, mapped by every rank
 * (collective: every rank passes the same bytes). CUPAT_ERROR_NOT_SUPPORTED
 * on every rank alike where some rank could not make or map it. */
cupat_status cupat__dist_shared(cupat_comm *c, const char *fn, int i, size_t bytes);
/* The all-reduce through IPC (collective, stream-ordered: returns once the
 * rounds are queued). CUPAT_ERROR_NOT_SUPPORTED (on every rank alike,
 * nothing done) where the blocks could not be shared: the caller then
 * takes the staged form. */
cupat_status cupat__dist_allreduce_ipc(cupat_comm *c, const char *fn, cupat_type type, cupat_op op, size_t n,
                                       const void *x, void *y);
/* One round, for the kernel: flags[src * DIST_IPC_CHUNKS + chunk] in the own
 * block; peer r's flag row for this rank and its inbox slot for this rank;
 * the own slots of every source rank (this round's half). */
typedef struct dist_push {
    int p, me;
    unsigned long long *flags;
    unsigned long long *peer_flags[DIST_IPC_MAX_RANKS];
    void *peer_in[DIST_IPC_MAX_RANKS];
    const void *in[DIST_IPC_MAX_RANKS];
} dist_push;
/* The round's kernel on the context's stream: n <= a slot's elements of x
 * pushed to every peer, y[i] = x_0[i] op x_1[i] op ... op x_{p-1}[i] (rank
 * order: the same bits on every rank). grid: blocks (the same on every
 * rank). */
cupat_status cupat__dist_push_round(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n, const void *x, void *y,
                                    const dist_push *q, unsigned long long epoch, int grid);

/* The phases of the distributed calls, as the lab prints them. */
enum {
    DIST_PHASE_LOCAL = 0,    /* local work after the exchange (the sort of  */
                             /* what arrived; p = 1: the whole sort)        */
    DIST_PHASE_SPLIT = 1,    /* samples, splitters, the bucket partition    */
    DIST_PHASE_EXCHANGE = 2, /* the exchange (and the own bucket's sort     */
                             /* under it)                                   */
    DIST_PHASE_MERGE = 3,    /* merging the two sorted runs                 */
    DIST_PHASES = 4
};
void cupat__dist_phase_begin(cupat_comm *c);
void cupat__dist_phase(cupat_comm *c, int phase);
#define dist_phase_begin cupat__dist_phase_begin
#define dist_phase cupat__dist_phase

/* c->buf[i] of at least `bytes`, grown (contents lost) when smaller. The
 * buffers by use: */
enum {
    DIST_BUF_PART = 0,   /* the sort's partitioned keys            */
    DIST_BUF_RECV = 1,   /* the sort's arrivals                    */
    DIST_BUF_TABLES = 2, /* the partition's count / offset tables  */
    DIST_BUF_X = 3       /* the SpMV's whole x, gathered           */
};
cupat_status cupat__dist_buffer(cupat_comm *c, int i, size_t bytes, void **p);
/* c->side and c->ev, made on first use (CUDA contexts). */
cupat_status cupat__dist_side(cupat_comm *c);

/* The key's place in cupat_sort's ascending total order as an unsigned
 * number (cupat__sort_xform's transform): signed integers with the sign bit
 * flipped, floats by the sign flip (negative: every bit; positive: the sign
 * bit), so -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. */
static inline uint64_t cupat__dist_order_key(cupat_type t, const unsigned char *p)
{
    uint32_t u32;
    uint64_t u64;
    switch (t) {
    case CUPAT_U32: memcpy(&u32, p, 4); return u32;
    case CUPAT_I32: memcpy(&u32, p, 4); return u32 ^ 0x80000000u;
    case CUPAT_F32: memcpy(&u32, p, 4); return (u32 & 0x80000000u) ? (uint32_t)~u32 : (u32 | 0x80000000u);
    case CUPAT_U64: memcpy(&u64, p, 8); return u64;
    case CUPAT_I64: memcpy(&u64, p, 8); return u64 ^ 0x8000000000000000ull;
    default: memcpy(&u64, p, 8); return (u64 >> 63) ? ~u64 : (u64 | 0x8000000000000000ull);
    }
}

/* Most ranks the sample sort's partition takes (buckets in shared memory). */
#define DIST_MAX_BUCKETS 64

/* Bucket partition of the sample sort: n keys of type t into p buckets by
 * p - 1 splitters (split[], ascending order keys, host memory): bucket r
 * holds the keys after split[r - 1] and up to split[r] in `order`. out gets
 * bucket 0, then bucket 1, ... (the order inside a bucket is unspecified:
 * keys alone, and equal keys have equal bits); bucket_n[r] their sizes
 * (host). tables: backend memory of cupat__dist_partition_tables(n, p)
 * bytes. Counts per block of 4096 keys, an exclusive scan of them
 * (cupat_scan), a scatter; waits for the stream to read the sizes. */
size_t cupat__dist_partition_tables(size_t n, int p);
cupat_status cupat__dist_partition(cupat_ctx *ctx, cupat_type t, cupat_sort_order order, size_t n, const void *keys,
                                   int p, const uint64_t *split, void *tables, void *out, size_t *bucket_n);

/* One peer's share of an exchange: send_bytes from send to peer, and
 * recv_bytes from peer into recv (either may be 0; then its pointer is not
 * touched). Backend memory. peer == own rank copies locally. */
typedef struct dist_xfer {
    int peer;
    const void *send;
    size_t send_bytes;
    void *recv;
    size_t recv_bytes;
} dist_xfer;

/* Every transfer of x[0, n) at once; the peer must post the matching
 * transfer (its send_bytes = our recv_bytes). On the CUDA backend the
 * transfers are ordered after the work already queued on `stream` and the
 * stream's later work after them: NCCL enqueues them and returns; the
 * staged transport waits for the stream, moves the data, and returns with
 * it done. Messages of any size (MPI ones are cut into pieces below 2^31
 * bytes). fn names the public call for error messages. */
cupat_status cupat__dist_exchange(cupat_comm *c, const char *fn, int n, const dist_xfer *x,
                                  cudaStream_t stream);

/* cupat__begin on the communicator's context; NULL comm refused. */
cupat_status cupat__dist_begin(cupat_comm *c, const char *fn);

/* An MPI error code as a cupat status with MPI's message. */
cupat_status cupat__dist_mpi_fail(cupat_ctx *ctx, const char *fn, const char *what, int err);
#define DIST_MPI_TRY(ctx, fn, call)                                                                \
    do {                                                                                           \
        int mpi_e_ = (call);                                                                       \
        if (mpi_e_ != MPI_SUCCESS) return cupat__dist_mpi_fail((ctx), (fn), #call, mpi_e_);        \
    } while (0)

/* Elementwise out[i] = a[i] op b[i] for n elements of type, on the
 * context's stream (dist_kernels.cu on CUDA; a loop on the CPU). op: SUM,
 * MIN, MAX with cupat_reduce's rules (NaN propagates through MIN / MAX,
 * -0 < +0; integer sums wrap). out may be a or b. */
cupat_status cupat__dist_combine(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n,
                                 const void *a, const void *b, void *out);

#ifdef __cplusplus
}
#endif
#endif
