/* SPDX-License-Identifier: Apache-2.0 */
/* scan_cpu.c — the CPU backend of scan, the segmented scans and stream
 * compaction (OpenMP), and the reference the CUDA rungs are checked against.
 * Same rules as the GPU (scan_ops.cuh): integer sums wrap (done in the
 * unsigned type), float MIN / MAX are IEEE 754-2019 minimum / maximum (a NaN
 * so far gives the quiet NaN 0x7fc00000 / 0x7ff8000000000000, -0 < +0), and
 * inside a float sum the neutral element is -0, so y[1] of an exclusive sum
 * is exactly x[0]; an exclusive float sum writes +0 where nothing precedes
 * (y[0], and each segment head).
 *
 * serial: one loop, left to right (PMPP 11.1), restarting at each head.
 * openmp: reduce-then-scan over fixed chunks of CHUNK elements: (1) each
 * chunk's total, in parallel (segmented: the total since the chunk's last
 * head, and whether it has one); (2) the chunk carries, chained serially in
 * chunk order; (3) each chunk rescanned from its carry, in parallel. The
 * chunks do not depend on the thread count, so neither do the bits. x is
 * read in (1) and (3) before y is written, so y == x works.
 * Depth of a float sum (openmp): an element goes through at most CHUNK - 1
 * adds to its chunk total, nc - 2 adds along the carries and CHUNK adds in its
 * output chunk's rescan, at most n - 1 in all (cupat__scan_depth says n).
 *
 * Compaction: serial keeps a running output index; openmp counts the kept
 * elements of each chunk, scans the counts and copies each chunk in
 * parallel. A stable partition writes the kept elements from y[0] and the
 * others from y[count], both in input order. */
#include "internal.h"
#include "scan/scan_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define CHUNK ((size_t)1 << 16) /* elements per OpenMP work item */

#include "float_order.h"

#define KEY_F(v) okey_f(v)
#define KEY_D(v) okey_d(v)
#define KEY_I(v) (v)
#define NAN_F(v) ((v) != (v))
#define NAN_I(v) 0
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Segment head at i: i == 0, a head flag, or a key unlike the one before
 * (raw bits). seg 0 (plain) has its only head at 0. */
ALWAYS_INLINE int head_at(const scan_req *r, size_t ksz, size_t i)
{
    if (i == 0) return 1;
    switch (r->seg) {
    case 1: return r->flags[i] != 0;
    case 2:
        if (ksz == 4) {
            uint32_t a, b;
            memcpy(&a, (const char *)r->keys + (i - 1) * 4, 4);
            memcpy(&b, (const char *)r->keys + i * 4, 4);
            return a != b;
        } else {
            uint64_t a, b;
            memcpy(&a, (const char *)r->keys + (i - 1) * 8, 8);
            memcpy(&b, (const char *)r->keys + i * 8, 8);
            return a != b;
        }
    default: return 0;
    }
}

/* Chunk summary of a segmented (or plain) scan. */
#define DEFINE_SCAN(T, SFX, ISF, UT, KEY, ISNAN, QNAN, LOWEST, HIGHEST)                  \
    typedef struct {                                                                     \
        T v;                                                                             \
        int head; /* the chunk holds a segment head */                                   \
    } part_##SFX;                                                                        \
    ALWAYS_INLINE T comb_##SFX(int op, T a, T b)                                         \
    {                                                                                    \
        switch (op) {                                                                    \
        case CUPAT_OP_SUM:                                                               \
            if (ISF) return a + b;                                                       \
            return (T)((UT)a + (UT)b);                                                   \
        default:                                                                         \
            if (ISNAN(a) || ISNAN(b)) return QNAN;                                       \
            if (op == CUPAT_OP_MAX ? KEY(b) > KEY(a) : KEY(b) < KEY(a)) return b;        \
            return a;                                                                    \
        }                                                                                \
    }                                                                                    \
    /* Neutral element inside the scan: -0 for float sums, else the identity. */       \
    ALWAYS_INLINE T neutral_##SFX(int op)                                                \
    {                                                                                    \
        switch (op) {                                                                    \
        case CUPAT_OP_MIN: return HIGHEST;                                               \
        case CUPAT_OP_MAX: return LOWEST;                                                \
        default: return ISF ? (T)-0.0 : (T)0;                                            \
        }                                                                                \
    }                                                                                    \
    /* Total of x[i0, i1) since its last head; *head: whether it has one. */           \
    ALWAYS_INLINE T total_##SFX(int op, const scan_req *r, size_t ksz, size_t i0,        \
                                size_t i1, int *head)                                    \
    {                                                                                    \
        const T *x = (const T *)r->x;                                                    \
        T acc = neutral_##SFX(op);                                                       \
        int h = 0;                                                                       \
        for (size_t i = i0; i < i1; i++) {                                               \
            if (r->seg && head_at(r, ksz, i)) {                                          \
                acc = neutral_##SFX(op);                                                 \
                h = 1;                                                                   \
            }                                                                            \
            acc = comb_##SFX(op, acc, x[i]);                                             \
        }                                                                                \
        *head = h || i0 == 0;                                                            \
        return acc;                                                                      \
    }                                                                                    \
    /* Scan x[i0, i1) into y from acc (the combination of everything before i0    \
     * in its segment); a head restarts. x[i] is read before y[i] is written. */     \
    ALWAYS_INLINE void range_##SFX(int op, const scan_req *r, size_t ksz, size_t i0,     \
                                   size_t i1, T acc)                                     \
    {                                                                                    \
        const T *x = (const T *)r->x;                                                    \
        T *y = (T *)r->y;                                                                \
        const T neu = neutral_##SFX(op);                                                 \
        /* what an exclusive scan writes at a head: +0 for float sums */               \
        const T first = (ISF && op == CUPAT_OP_SUM) ? (T)0 : neu;                        \
        if (r->exclusive) {                                                              \
            for (size_t i = i0; i < i1; i++) {                                           \
                T v = x[i];                                                              \
                if (head_at(r, ksz, i)) {                                                \
                    y[i] = first;                                                        \
                    acc = comb_##SFX(op, neu, v);                                        \
                } else {                                                                 \
                    y[i] = acc;                                                          \
                    acc = comb_##SFX(op, acc, v);                                        \
                }                                                                        \
            }                                                                            \
        } else {                                                                         \
            for (size_t i = i0; i < i1; i++) {                                           \
                if (head_at(r, ksz, i)) acc = neu;                                       \
                acc = comb_##SFX(op, acc, x[i]);                                         \
                y[i] = acc;                                                              \
            }                                                                            \
        }                                                                                \
    }                                                                                    \
    ALWAYS_INLINE cupat_status run_op_##SFX(cupat_ctx *ctx, int op, const scan_req *r,   \
                                            int openmp)                                  \
    {                                                                                    \
        size_t n = r->n, ksz = r->seg == 2 ? cupat_type_size(r->key_type) : 0;           \
        if (!openmp || n <= CHUNK) {                                                     \
            range_##SFX(op, r, ksz, 0, n, neutral_##SFX(op));                            \
            return CUPAT_SUCCESS;                                                        \
        }                                                                                \
        size_t nc = (n + CHUNK - 1) / CHUNK;                                             \
        void *mem;                                                                       \
        CUPAT_TRY(cupat__scratch(ctx, nc * sizeof(part_##SFX), &mem));                   \
        part_##SFX *p = (part_##SFX *)mem;                                               \
        long long nci = (long long)nc;                                                   \
        _Pragma("omp parallel for schedule(static)") for (long long c = 0; c < nci; c++) \
        {                                                                                \
            size_t i0 = (size_t)c * CHUNK, i1 = n - i0 < CHUNK ? n : i0 + CHUNK;         \
            int h;                                                                       \
            p[c].v = total_##SFX(op, r, ksz, i0, i1, &h);                                \
            p[c].head = h;                                                               \
        }                                                                                \
        /* carries in chunk order: p[c].v becomes what precedes chunk c */             \
        T run = neutral_##SFX(op);                                                       \
        for (size_t c = 0; c < nc; c++) {                                                \
            T t = p[c].v;                                                                \
            int h = p[c].head;                                                           \
            p[c].v = run;                                                                \
            run = h ? t : comb_##SFX(op, run, t);                                        \
        }                                                                                \
        _Pragma("omp parallel for schedule(static)") for (long long c = 0; c < nci; c++) \
        {                                                                                \
            size_t i0 = (size_t)c * CHUNK, i1 = n - i0 < CHUNK ? n : i0 + CHUNK;         \
            range_##SFX(op, r, ksz, i0, i1, p[c].v);                                     \
        }                                                                                \
        return CUPAT_SUCCESS;                                                            \
    }                                                                                    \
    /* The op as a constant in each instance, so comb's switch folds away. */         \
    static cupat_status run_##SFX(cupat_ctx *ctx, const scan_req *r, int openmp)         \
    {                                                                                    \
        switch (r->op) {                                                                 \
        case CUPAT_OP_SUM: return run_op_##SFX(ctx, CUPAT_OP_SUM, r, openmp);            \
        case CUPAT_OP_MIN: return run_op_##SFX(ctx, CUPAT_OP_MIN, r, openmp);            \
        case CUPAT_OP_MAX: return run_op_##SFX(ctx, CUPAT_OP_MAX, r, openmp);            \
        default:                                                                         \
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: op %d reached the CPU scan", \
                               r->fn, (int)r->op);                                       \
        }                                                                                \
    }

DEFINE_SCAN(float, f32, 1, float, KEY_F, NAN_F, QNAN_F, -INFINITY, INFINITY)
DEFINE_SCAN(double, f64, 1, double, KEY_D, NAN_F, QNAN_D, -(double)INFINITY, (double)INFINITY)
DEFINE_SCAN(int32_t, i32, 0, uint32_t, KEY_I, NAN_I, 0, INT32_MIN, INT32_MAX)
DEFINE_SCAN(uint32_t, u32, 0, uint32_t, KEY_I, NAN_I, 0, 0, UINT32_MAX)
DEFINE_SCAN(int64_t, i64, 0, uint64_t, KEY_I, NAN_I, 0, INT64_MIN, INT64_MAX)
DEFINE_SCAN(uint64_t, u64, 0, uint64_t, KEY_I, NAN_I, 0, 0, UINT64_MAX)

cupat_status cupat__scan_cpu(cupat_ctx *ctx, const scan_req *r)
{
    int openmp;
    if (r->seg == 0) {
        if (r->rung != SR_CPU_SERIAL && r->rung != SR_CPU_OPENMP)
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL,
                               "%s: scan rung %d reached the CPU backend", r->fn, r->rung);
        openmp = r->rung == SR_CPU_OPENMP;
    } else {
        if (r->rung != SG_CPU_SERIAL && r->rung != SG_CPU_OPENMP)
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL,
                               "%s: segscan rung %d reached the CPU backend", r->fn, r->rung);
        openmp = r->rung == SG_CPU_OPENMP;
    }
    if (r->n == 0) return CUPAT_SUCCESS;
    switch (r->type) {
    case CUPAT_F32: return run_f32(ctx, r, openmp);
    case CUPAT_F64: return run_f64(ctx, r, openmp);
    case CUPAT_I32: return run_i32(ctx, r, openmp);
    case CUPAT_U32: return run_u32(ctx, r, openmp);
    case CUPAT_I64: return run_i64(ctx, r, openmp);
    case CUPAT_U64: return run_u64(ctx, r, openmp);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: type %d reached the CPU scan", r->fn,
                       (int)r->type);
}

/* ---------------------------------------------------------- compaction -- */

/* Whether element i is kept: its flag, the predicate (IEEE comparisons for
 * floats: NaN fails <, > and ranges, and is nonzero), or for unique a value
 * whose bits differ from the one before. B: the unsigned type of T's size. */
#define DEFINE_SELECT(T, SFX, B, MEMBER)                                                 \
    ALWAYS_INLINE int keep_##SFX(const select_req *r, int how, size_t i)                 \
    {                                                                                    \
        const T *x = (const T *)r->x;                                                    \
        switch (how) {                                                                   \
        case 0: return r->flags[i] != 0;                                                 \
        case 1 + CUPAT_PRED_NONZERO: return x[i] != 0;                                   \
        case 1 + CUPAT_PRED_LESS: return x[i] < r->pred.a.MEMBER;                        \
        case 1 + CUPAT_PRED_GREATER: return x[i] > r->pred.a.MEMBER;                     \
        case 1 + CUPAT_PRED_IN_RANGE:                                                    \
            return r->pred.a.MEMBER <= x[i] && x[i] < r->pred.b.MEMBER;                  \
        default: { /* unique */                                                          \
            if (i == 0) return 1;                                                        \
            B a, b;                                                                      \
            memcpy(&a, &x[i - 1], sizeof a);                                             \
            memcpy(&b, &x[i], sizeof b);                                                 \
            return a != b;                                                               \
        }                                                                                \
        }                                                                                \
    }                                                                                    \
    ALWAYS_INLINE size_t count_how_##SFX(const select_req *r, int how, size_t i0, size_t i1) \
    {                                                                                    \
        size_t k = 0;                                                                    \
        for (size_t i = i0; i < i1; i++) k += (size_t)keep_##SFX(r, how, i);             \
        return k;                                                                        \
    }                                                                                    \
    /* Kept elements of [i0, i1) to y[kept..], the others (partition) to        \
     * y[rest..]; elements are moved as raw bits. */                                   \
    ALWAYS_INLINE void copy_how_##SFX(const select_req *r, int how, size_t i0, size_t i1, \
                                      size_t kept, size_t rest)                          \
    {                                                                                    \
        const B *xb = (const B *)r->x;                                                   \
        B *yb = (B *)r->y;                                                               \
        if (r->mode == 1) {                                                              \
            for (size_t i = i0; i < i1; i++) {                                           \
                if (keep_##SFX(r, how, i)) yb[kept++] = xb[i];                           \
                else yb[rest++] = xb[i];                                                 \
            }                                                                            \
        } else {                                                                         \
            for (size_t i = i0; i < i1; i++)                                             \
                if (keep_##SFX(r, how, i)) yb[kept++] = xb[i];                           \
        }                                                                                \
    }                                                                                    \
    /* how: 0 flags, 1 + pred kind, 5 unique; a constant in each instance. */         \
    static size_t count_##SFX(const select_req *r, int how, size_t i0, size_t i1)        \
    {                                                                                    \
        switch (how) {                                                                   \
        case 0: return count_how_##SFX(r, 0, i0, i1);                                    \
        case 1: return count_how_##SFX(r, 1, i0, i1);                                    \
        case 2: return count_how_##SFX(r, 2, i0, i1);                                    \
        case 3: return count_how_##SFX(r, 3, i0, i1);                                    \
        case 4: return count_how_##SFX(r, 4, i0, i1);                                    \
        default: return count_how_##SFX(r, 5, i0, i1);                                   \
        }                                                                                \
    }                                                                                    \
    static void copy_##SFX(const select_req *r, int how, size_t i0, size_t i1, size_t kept, \
                           size_t rest)                                                  \
    {                                                                                    \
        switch (how) {                                                                   \
        case 0: copy_how_##SFX(r, 0, i0, i1, kept, rest); break;                         \
        case 1: copy_how_##SFX(r, 1, i0, i1, kept, rest); break;                         \
        case 2: copy_how_##SFX(r, 2, i0, i1, kept, rest); break;                         \
        case 3: copy_how_##SFX(r, 3, i0, i1, kept, rest); break;                         \
        case 4: copy_how_##SFX(r, 4, i0, i1, kept, rest); break;                         \
        default: copy_how_##SFX(r, 5, i0, i1, kept, rest); break;                        \
        }                                                                                \
    }

DEFINE_SELECT(float, f32, uint32_t, f32)
DEFINE_SELECT(double, f64, uint64_t, f64)
DEFINE_SELECT(int32_t, i32, uint32_t, i32)
DEFINE_SELECT(uint32_t, u32, uint32_t, u32)
DEFINE_SELECT(int64_t, i64, uint64_t, i64)
DEFINE_SELECT(uint64_t, u64, uint64_t, u64)

static size_t sel_count(const select_req *r, int how, size_t i0, size_t i1)
{
    switch (r->type) {
    case CUPAT_F32: return count_f32(r, how, i0, i1);
    case CUPAT_F64: return count_f64(r, how, i0, i1);
    case CUPAT_I32: return count_i32(r, how, i0, i1);
    case CUPAT_U32: return count_u32(r, how, i0, i1);
    case CUPAT_I64: return count_i64(r, how, i0, i1);
    default: return count_u64(r, how, i0, i1);
    }
}

static void sel_copy(const select_req *r, int how, size_t i0, size_t i1, size_t kept,
                     size_t rest)
{
    switch (r->type) {
    case CUPAT_F32: copy_f32(r, how, i0, i1, kept, rest); break;
    case CUPAT_F64: copy_f64(r, how, i0, i1, kept, rest); break;
    case CUPAT_I32: copy_i32(r, how, i0, i1, kept, rest); break;
    case CUPAT_U32: copy_u32(r, how, i0, i1, kept, rest); break;
    case CUPAT_I64: copy_i64(r, how, i0, i1, kept, rest); break;
    default: copy_u64(r, how, i0, i1, kept, rest); break;
    }
}

cupat_status cupat__select_cpu(cupat_ctx *ctx, const select_req *r)
{
    if (r->rung != SL_CPU_SERIAL && r->rung != SL_CPU_OPENMP)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: select rung %d reached the CPU backend",
                           r->fn, r->rung);
    if (cupat_type_size(r->type) == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: type %d reached the CPU select",
                           r->fn, (int)r->type);
    int how = r->mode == 2 ? 5 : r->use_pred ? 1 + (int)r->pred.kind : 0;
    if (r->use_pred && (how < 1 || how > 4))
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: predicate %d reached the CPU select",
                           r->fn, (int)r->pred.kind);
    size_t n = r->n, kept = 0;
    if (n == 0) {
    } else if (r->rung == SL_CPU_SERIAL || n <= CHUNK) {
        kept = sel_count(r, how, 0, n);
        sel_copy(r, how, 0, n, 0, kept);
    } else {
        size_t nc = (n + CHUNK - 1) / CHUNK;
        void *mem;
        CUPAT_TRY(cupat__scratch(ctx, nc * sizeof(size_t), &mem));
        size_t *cnt = (size_t *)mem;
        long long nci = (long long)nc;
#pragma omp parallel for schedule(static)
        for (long long c = 0; c < nci; c++) {
            size_t i0 = (size_t)c * CHUNK, i1 = n - i0 < CHUNK ? n : i0 + CHUNK;
            cnt[c] = sel_count(r, how, i0, i1);
        }
        for (size_t c = 0; c < nc; c++) { /* exclusive scan of the counts */
            size_t k = cnt[c];
            cnt[c] = kept;
            kept += k;
        }
#pragma omp parallel for schedule(static)
        for (long long c = 0; c < nci; c++) {
            size_t i0 = (size_t)c * CHUNK, i1 = n - i0 < CHUNK ? n : i0 + CHUNK;
            /* the elements before chunk c not kept: i0 - cnt[c] */
            sel_copy(r, how, i0, i1, cnt[c], kept + (i0 - cnt[c]));
        }
    }
    *r->count = (uint64_t)kept;
    return CUPAT_SUCCESS;
}
