/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_cpu.c — the CPU backend of reduce and dot (OpenMP), and the
 * reference the CUDA rungs are checked against. Same rules as the GPU:
 * integer sums wrap, min/max follow IEEE 754-2019 (NaN wins, -0 < +0),
 * arg ops take the first index. Deterministic whatever the thread count:
 * work is cut into fixed chunks and the chunk results are combined as a
 * fixed tree. */
#include "internal.h"
#include "reduce_priv.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << 14) /* elements per OpenMP work item */
#define LANES 8                 /* interleaved accumulators per chunk */

enum { OPC_SUMC = 5 };

#include "float_order.h"

/* TwoSum: s + e == a + b exactly (-ffp-contract=off keeps it exact). */
#define TWO_SUM(T, a, b, s, e)                                                           \
    do {                                                                                 \
        T s_ = (a) + (b);                                                                \
        T bb_ = s_ - (a);                                                                \
        (e) = ((a) - (s_ - bb_)) + ((b) - bb_);                                          \
        (s) = s_;                                                                        \
    } while (0)

/* LANES runs over x[i0, i0 + len): element j goes to lane j % LANES. */
#define LANE_LOOP(SFX, OPV)                                                              \
    for (size_t j = 0; j < len; j += LANES) {                                            \
        size_t m = len - j < LANES ? len - j : LANES;                                    \
        for (size_t k = 0; k < m; k++)                                                   \
            l[k] = comb_##SFX(OPV, l[k], lift_##SFX(x[i0 + j + k], i0 + j + k));         \
    }

/* One accumulator type and combine per element type. For floats the sum's
 * neutral element is -0 (x + -0 == x for every x). */
#define DEFINE_TYPE(T, SFX, ISF, UT, KEY, ISNAN, QNAN, LOWEST, HIGHEST)                 \
    typedef struct {                                                                     \
        T v, c;                                                                          \
        uint64_t i;                                                                      \
    } acc_##SFX;                                                                         \
    static inline acc_##SFX ident_##SFX(int op)                                          \
    {                                                                                    \
        acc_##SFX a;                                                                     \
        a.i = UINT64_MAX;                                                                \
        a.c = ISF ? (T)-0.0 : (T)0;                                                      \
        switch (op) {                                                                    \
        case CUPAT_OP_MIN:                                                               \
        case CUPAT_OP_ARGMIN: a.v = HIGHEST; break;                                      \
        case CUPAT_OP_MAX:                                                               \
        case CUPAT_OP_ARGMAX: a.v = LOWEST; break;                                       \
        default: a.v = ISF ? (T)-0.0 : (T)0; break;                                      \
        }                                                                                \
        return a;                                                                        \
    }                                                                                    \
    static inline acc_##SFX comb_##SFX(int op, acc_##SFX a, acc_##SFX b)                 \
    {                                                                                    \
        switch (op) {                                                                    \
        case CUPAT_OP_SUM:                                                               \
            if (ISF) a.v = a.v + b.v;                                                    \
            else a.v = (T)((UT)a.v + (UT)b.v);                                           \
            return a;                                                                    \
        case OPC_SUMC:                                                                   \
            if (ISF) {                                                                   \
                T s, e;                                                                  \
                TWO_SUM(T, a.v, b.v, s, e);                                              \
                a.c = (a.c + b.c) + e;                                                   \
                a.v = s;                                                                 \
            } else {                                                                     \
                a.v = (T)((UT)a.v + (UT)b.v);                                            \
            }                                                                            \
            return a;                                                                    \
        case CUPAT_OP_MIN:                                                               \
        case CUPAT_OP_MAX:                                                               \
            if (ISNAN(a.v) || ISNAN(b.v)) {                                              \
                a.v = QNAN;                                                              \
                return a;                                                                \
            }                                                                            \
            if (op == CUPAT_OP_MAX ? KEY(b.v) > KEY(a.v) : KEY(b.v) < KEY(a.v)) a.v = b.v; \
            return a;                                                                    \
        default: {                                                                       \
            int an = ISNAN(a.v), bn = ISNAN(b.v), a_wins;                                \
            if (an != bn) a_wins = an;                                                   \
            else if (!an && KEY(a.v) != KEY(b.v))                                        \
                a_wins = op == CUPAT_OP_ARGMAX ? KEY(a.v) > KEY(b.v) : KEY(a.v) < KEY(b.v); \
            else a_wins = a.i <= b.i;                                                    \
            return a_wins ? a : b;                                                       \
        }                                                                                \
        }                                                                                \
    }                                                                                    \
    static inline acc_##SFX lift_##SFX(T v, uint64_t i)                                  \
    {                                                                                    \
        acc_##SFX a;                                                                     \
        a.v = v;                                                                         \
        a.c = ISF ? (T)-0.0 : (T)0;                                                      \
        a.i = i;                                                                         \
        return a;                                                                        \
    }                                                                                    \
    /* Elements [i0, i0 + len): LANES interleaved runs, then a fixed tree. */           \
    /* The op is a constant in each loop, so comb's switch folds away. */             \
    static acc_##SFX chunk_##SFX(int op, const T *x, size_t i0, size_t len)             \
    {                                                                                    \
        acc_##SFX l[LANES];                                                              \
        for (int k = 0; k < LANES; k++) l[k] = ident_##SFX(op);                          \
        switch (op) {                                                                    \
        case CUPAT_OP_SUM: LANE_LOOP(SFX, CUPAT_OP_SUM); break;                          \
        case OPC_SUMC: LANE_LOOP(SFX, OPC_SUMC); break;                                  \
        case CUPAT_OP_MIN: LANE_LOOP(SFX, CUPAT_OP_MIN); break;                          \
        case CUPAT_OP_MAX: LANE_LOOP(SFX, CUPAT_OP_MAX); break;                          \
        case CUPAT_OP_ARGMIN: LANE_LOOP(SFX, CUPAT_OP_ARGMIN); break;                    \
        default: LANE_LOOP(SFX, CUPAT_OP_ARGMAX); break;                                 \
        }                                                                                \
        for (int w = 1; w < LANES; w *= 2)                                               \
            for (int k = 0; k + w < LANES; k += 2 * w) l[k] = comb_##SFX(op, l[k], l[k + w]); \
        return l[0];                                                                     \
    }                                                                                    \
    /* Pairwise over p[lo, hi) (fixed shape: split at the middle). */                    \
    static acc_##SFX tree_##SFX(int op, const acc_##SFX *p, size_t lo, size_t hi)        \
    {                                                                                    \
        if (hi - lo == 1) return p[lo];                                                  \
        size_t mid = lo + (hi - lo) / 2;                                                 \
        return comb_##SFX(op, tree_##SFX(op, p, lo, mid), tree_##SFX(op, p, mid, hi));   \
    }                                                                                    \
    static void store_##SFX(int op, acc_##SFX a, void *out)                              \
    {                                                                                    \
        if (op == CUPAT_OP_ARGMIN || op == CUPAT_OP_ARGMAX) {                            \
            cupat_indexed r;                                                             \
            memset(&r, 0, sizeof r);                                                     \
            memcpy(&r.value, &a.v, sizeof(T));                                           \
            r.index = a.i;                                                               \
            memcpy(out, &r, sizeof r);                                                   \
            return;                                                                      \
        }                                                                                \
        T v = a.v;                                                                       \
        /* compensated: inf/NaN make the error terms meaningless; c == 0 keeps -0 */    \
        if (op == OPC_SUMC && ISF && a.v - a.v == 0 && a.c != 0) v = a.v + a.c;          \
        memcpy(out, &v, sizeof(T));                                                      \
    }                                                                                    \
    static cupat_status run_##SFX(cupat_ctx *ctx, int op, int rung, size_t n, const T *x, \
                                  void *out)                                             \
    {                                                                                    \
        if (rung == RR_CPU_SERIAL) {                                                     \
            acc_##SFX a = ident_##SFX(op);                                               \
            for (size_t i = 0; i < n; i++) a = comb_##SFX(op, a, lift_##SFX(x[i], i));   \
            store_##SFX(op, a, out);                                                     \
            return CUPAT_SUCCESS;                                                        \
        }                                                                                \
        size_t nc = (n + CHUNK - 1) / CHUNK;                                             \
        void *mem;                                                                       \
        CUPAT_TRY(cupat__scratch(ctx, nc * sizeof(acc_##SFX), &mem));                    \
        acc_##SFX *p = (acc_##SFX *)mem;                                                 \
        long long nci = (long long)nc;                                                   \
        _Pragma("omp parallel for schedule(static)") for (long long c = 0; c < nci; c++) \
        {                                                                                \
            size_t i0 = (size_t)c * CHUNK;                                               \
            size_t len = n - i0 < CHUNK ? n - i0 : CHUNK;                                \
            p[c] = chunk_##SFX(op, x, i0, len);                                          \
        }                                                                                \
        store_##SFX(op, tree_##SFX(op, p, 0, nc), out);                                  \
        return CUPAT_SUCCESS;                                                            \
    }

#define KEY_F(v) okey_f(v)
#define KEY_D(v) okey_d(v)
#define KEY_I(v) (v)
#define NAN_F(v) ((v) != (v))
#define NAN_I(v) 0

DEFINE_TYPE(float, f32, 1, float, KEY_F, NAN_F, QNAN_F, -INFINITY, INFINITY)
DEFINE_TYPE(double, f64, 1, double, KEY_D, NAN_F, QNAN_D, -(double)INFINITY, (double)INFINITY)
DEFINE_TYPE(int32_t, i32, 0, uint32_t, KEY_I, NAN_I, 0, INT32_MIN, INT32_MAX)
DEFINE_TYPE(uint32_t, u32, 0, uint32_t, KEY_I, NAN_I, 0, 0, UINT32_MAX)
DEFINE_TYPE(int64_t, i64, 0, uint64_t, KEY_I, NAN_I, 0, INT64_MIN, INT64_MAX)
DEFINE_TYPE(uint64_t, u64, 0, uint64_t, KEY_I, NAN_I, 0, 0, UINT64_MAX)

/* ------------------------------------------------------------------- dot -- */

/* Dot2 (Ogita, Rump, Oishi 2005) in the chunk and tree shape of the openmp
 * rung, so the same bits for any thread count: each product's rounding error
 * comes exactly from an FMA (TwoProduct: p + fma(a, b, -p) == a * b), each
 * addition's from TwoSum; the errors are summed plainly beside the sum and
 * added once at the end. The result is as accurate as the rounded dot
 * product evaluated in twice the precision. Pairs combine as (s1, c1) +
 * (s2, c2) = (TwoSum(s1, s2), c1 + c2 + its error). */
#define DEFINE_DOT2(T, SFX, FMA)                                                         \
    typedef struct {                                                                     \
        T s, c;                                                                          \
    } dd_##SFX;                                                                          \
    static inline dd_##SFX dd_add_##SFX(dd_##SFX a, dd_##SFX b)                          \
    {                                                                                    \
        dd_##SFX r;                                                                      \
        T e;                                                                             \
        TWO_SUM(T, a.s, b.s, r.s, e);                                                    \
        r.c = (a.c + b.c) + e;                                                           \
        return r;                                                                        \
    }                                                                                    \
    static dd_##SFX dd_tree_##SFX(const dd_##SFX *p, size_t lo, size_t hi)               \
    {                                                                                    \
        if (hi - lo == 1) return p[lo];                                                  \
        size_t mid = lo + (hi - lo) / 2;                                                 \
        return dd_add_##SFX(dd_tree_##SFX(p, lo, mid), dd_tree_##SFX(p, mid, hi));       \
    }                                                                                    \
    static cupat_status dot2_##SFX(cupat_ctx *ctx, size_t n, const T *x, const T *y,     \
                                   T *out)                                               \
    {                                                                                    \
        size_t nc = (n + CHUNK - 1) / CHUNK;                                             \
        void *mem;                                                                       \
        CUPAT_TRY(cupat__scratch(ctx, nc * sizeof(dd_##SFX), &mem));                     \
        dd_##SFX *p = (dd_##SFX *)mem;                                                   \
        long long nci = (long long)nc;                                                   \
        _Pragma("omp parallel for schedule(static)") for (long long c = 0; c < nci; c++) \
        {                                                                                \
            size_t i0 = (size_t)c * CHUNK;                                               \
            size_t len = n - i0 < CHUNK ? n - i0 : CHUNK;                                \
            dd_##SFX l[LANES];                                                           \
            for (int k = 0; k < LANES; k++) l[k].s = l[k].c = (T)-0.0;                   \
            for (size_t j = 0; j < len; j++) {                                           \
                T a = x[i0 + j], b = y[i0 + j];                                          \
                T pr = a * b, pe = FMA(a, b, -pr), s, e;                                 \
                dd_##SFX *q = &l[j % LANES];                                             \
                TWO_SUM(T, q->s, pr, s, e);                                              \
                q->s = s;                                                                \
                q->c = q->c + (e + pe);                                                  \
            }                                                                            \
            for (int w = 1; w < LANES; w *= 2)                                           \
                for (int k = 0; k + w < LANES; k += 2 * w)                               \
                    l[k] = dd_add_##SFX(l[k], l[k + w]);                                 \
            p[c] = l[0];                                                                 \
        }                                                                                \
        dd_##SFX r = dd_tree_##SFX(p, 0, nc);                                            \
        /* inf/NaN make the error terms meaningless; c == 0 keeps the sum's -0 */      \
        *out = r.s - r.s == 0 && r.c != 0 ? r.s + r.c : r.s;                             \
        return CUPAT_SUCCESS;                                                            \
    }

DEFINE_DOT2(float, f32, fmaf)
DEFINE_DOT2(double, f64, fma)

#define DEFINE_DOT(T, SFX, FMA)                                                          \
    /* Balanced tree of rounded products, split at the middle: for n = 4 the    \
     * lecture's "parallel" ((p1 + p2) + (p3 + p4)). */                                  \
    static T dot_tree_##SFX(const T *x, const T *y, size_t lo, size_t hi)                \
    {                                                                                    \
        if (hi - lo == 1) return x[lo] * y[lo];                                          \
        size_t mid = lo + (hi - lo) / 2;                                                 \
        return dot_tree_##SFX(x, y, lo, mid) + dot_tree_##SFX(x, y, mid, hi);            \
    }                                                                                    \
    static T dot_sum_##SFX(const T *p, size_t lo, size_t hi)                             \
    {                                                                                    \
        if (hi - lo == 1) return p[lo];                                                  \
        size_t mid = lo + (hi - lo) / 2;                                                 \
        return dot_sum_##SFX(p, lo, mid) + dot_sum_##SFX(p, mid, hi);                    \
    }                                                                                    \
    static cupat_status dot_##SFX(cupat_ctx *ctx, int rung, size_t n, const T *x,        \
                                  const T *y, void *out)                                 \
    {                                                                                    \
        T t = 0;                                                                         \
        if (n == 0) {                                                                    \
        } else if (rung == DR_CPU_SERIAL) { /* p = rn(a*b); t = rn(t + p) */             \
            for (size_t i = 0; i < n; i++) {                                             \
                T p = x[i] * y[i];                                                       \
                t = t + p;                                                               \
            }                                                                            \
        } else if (rung == DR_CPU_SERIAL_FMA) { /* t = rn(a*b + t) */                    \
            for (size_t i = 0; i < n; i++) t = FMA(x[i], y[i], t);                       \
        } else if (rung == DR_CPU_PAIRWISE) {                                            \
            t = dot_tree_##SFX(x, y, 0, n);                                              \
        } else if (rung == DR_CPU_COMPENSATED) {                                         \
            CUPAT_TRY(dot2_##SFX(ctx, n, x, y, &t));                                     \
        } else { /* chunks of LANES fused runs, lanes and chunks as trees */             \
            size_t nc = (n + CHUNK - 1) / CHUNK;                                         \
            void *mem;                                                                   \
            CUPAT_TRY(cupat__scratch(ctx, nc * sizeof(T), &mem));                        \
            T *p = (T *)mem;                                                             \
            long long nci = (long long)nc;                                               \
            _Pragma("omp parallel for schedule(static)") for (long long c = 0; c < nci; c++) \
            {                                                                            \
                size_t i0 = (size_t)c * CHUNK;                                           \
                size_t len = n - i0 < CHUNK ? n - i0 : CHUNK;                            \
                T l[LANES] = {0};                                                        \
                for (int k = 0; k < LANES; k++) l[k] = (T)-0.0;                          \
                for (size_t j = 0; j < len; j++)                                         \
                    l[j % LANES] = FMA(x[i0 + j], y[i0 + j], l[j % LANES]);              \
                for (int w = 1; w < LANES; w *= 2)                                       \
                    for (int k = 0; k + w < LANES; k += 2 * w) l[k] = l[k] + l[k + w];   \
                p[c] = l[0];                                                             \
            }                                                                            \
            t = dot_sum_##SFX(p, 0, nc);                                                 \
        }                                                                                \
        memcpy(out, &t, sizeof t);                                                       \
        return CUPAT_SUCCESS;                                                            \
    }

DEFINE_DOT(float, f32, fmaf)
DEFINE_DOT(double, f64, fma)

cupat_status cupat__reduce_cpu(cupat_ctx *ctx, const reduce_req *r)
{
    if (r->dot) {
        if (r->type == CUPAT_F32) return dot_f32(ctx, r->rung, r->n, r->x, r->y, r->out);
        return dot_f64(ctx, r->rung, r->n, r->x, r->y, r->out);
    }
    if (r->n == 0) {
        cupat__reduce_identity(r->type, r->op, r->out);
        return CUPAT_SUCCESS;
    }
    int op = (int)r->op;
    if (r->rung == RR_CPU_COMPENSATED && op == CUPAT_OP_SUM) op = OPC_SUMC;
    switch (r->type) {
    case CUPAT_F32: return run_f32(ctx, op, r->rung, r->n, r->x, r->out);
    case CUPAT_F64: return run_f64(ctx, op, r->rung, r->n, r->x, r->out);
    case CUPAT_I32: return run_i32(ctx, op, r->rung, r->n, r->x, r->out);
    case CUPAT_U32: return run_u32(ctx, op, r->rung, r->n, r->x, r->out);
    case CUPAT_I64: return run_i64(ctx, op, r->rung, r->n, r->x, r->out);
    case CUPAT_U64: return run_u64(ctx, op, r->rung, r->n, r->x, r->out);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: type %d reached the CPU backend", r->fn,
                       (int)r->type);
}

static size_t clog2z(size_t k)
{
    size_t d = 0;
    while (((size_t)1 << d) < k) d++;
    return d;
}

size_t cupat__reduce_depth_cpu(int dot, int rung, size_t n)
{
    if (n <= 1) return dot ? 1 : 0;
    size_t extra = dot ? 1 : 0; /* a product's rounding */
    size_t run = ((n < CHUNK ? n : CHUNK) + LANES - 1) / LANES;
    size_t chunked = run + clog2z(LANES) + clog2z((n + CHUNK - 1) / CHUNK) + extra;
    if (dot) {
        switch (rung) {
        case DR_CPU_SERIAL: return n;
        case DR_CPU_SERIAL_FMA: return n;
        case DR_CPU_PAIRWISE: return clog2z(n) + 1;
        default: return chunked;
        }
    }
    if (rung == RR_CPU_SERIAL) return n - 1;
    return chunked;
}
