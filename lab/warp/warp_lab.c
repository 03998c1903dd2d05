/* SPDX-License-Identifier: Apache-2.0 */
/* warp_lab.c — the experiments of `cupat lab warp`: what each row calls,
 * the book's printed lines (PCCP 5.6), the host model of the CUDA rules that
 * gives the expected lanes, and the run on the GPU. */
#include "warp/warp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the table -- */

static const lab_warp_row r_broadcast[] = {
    {"__shfl_sync(0xffff, v, 2, 16)", 16, LAB_WARP_DEC, "2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2", NULL}};
static const lab_warp_row r_up[] = {
    {"__shfl_up_sync(0xffff, v, 2, 16)", 16, LAB_WARP_DEC, "0 1 0 1 2 3 4 5 6 7 8 9 10 11 12 13", NULL}};
static const lab_warp_row r_down[] = {
    {"__shfl_down_sync(0xffff, v, 2, 16)", 16, LAB_WARP_DEC, "2 3 4 5 6 7 8 9 10 11 12 13 14 15 14 15",
     NULL}};
static const lab_warp_row r_wrap[] = {{"__shfl_sync(0xffff, v, threadIdx.x + 2, 16)", 16, LAB_WARP_DEC,
                                       "2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 1", NULL}};
static const lab_warp_row r_xor[] = {
    {"__shfl_xor_sync(0xffff, v, 1, 16)", 16, LAB_WARP_DEC, "1 0 2 3 5 4 7 6 9 8 11 10 13 12 15 14",
     "the notes print lanes 2-3 as \"2 3\": a typo; lane 2 reads lane 2^1 = 3 and lane 3 "
     "reads lane 2, so every pair swaps: \"3 2\""}};
static const lab_warp_row r_xor_array[] = {
    {"value[i] = __shfl_xor_sync(0xf, value[i], 1, 16), i = 0..3", 16, LAB_WARP_DEC,
     "4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11", NULL}};
static const lab_warp_row r_swap[] = {
    {"swap(value, lane, 1, 0, 3): value[3] = __shfl_xor_sync(0xf, value[3], 1, 16)", 16, LAB_WARP_DEC,
     "7 1 2 3 4 5 6 0 8 9 10 15 12 13 14 11", NULL}};
static const lab_warp_row r_width[] = {
    {"__shfl_sync(full, v, 0, 1)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__shfl_sync(full, v, 0, 2)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__shfl_sync(full, v, 0, 4)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__shfl_sync(full, v, 0, 8)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__shfl_sync(full, v, 0, 16)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__shfl_sync(full, v, 0, 32)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__shfl_sync(full, v, 20, 16): srcLane modulo width", 32, LAB_WARP_DEC, NULL, NULL},
    {"__shfl_xor_sync(full, v, 8, 8): partner outside the segment", 32, LAB_WARP_DEC, NULL, NULL},
    {"__shfl_up_sync(full, v, 3, 8)", 32, LAB_WARP_DEC, NULL, NULL},
    {"lanes 0-15: __shfl_sync(0x0000ffff, v, 15 - lane); 16-31 keep v", 32, LAB_WARP_DEC, NULL, NULL},
};
static const lab_warp_row r_half[] = {
    {"__half h = lane/2: __shfl_xor_sync(full, h, 1)", 32, LAB_WARP_REAL, NULL, NULL},
    {"__half2 (lane/2, -lane): __shfl_down_sync(full, h2, 1), low", 32, LAB_WARP_REAL, NULL, NULL},
    {"  the same, high", 32, LAB_WARP_REAL, NULL, NULL},
    {"__nv_bfloat16 lane+1/2: __shfl_sync(full, b, 31 - lane)", 32, LAB_WARP_REAL, NULL, NULL},
    {"__nv_bfloat162 (lane, lane/4): __shfl_up_sync(full, b2, 3), low", 32, LAB_WARP_REAL, NULL, NULL},
    {"  the same, high", 32, LAB_WARP_REAL, NULL, NULL},
    {"cupat_dev::shfl_xor(h, 16): a __half through one 32-bit word", 32, LAB_WARP_REAL, NULL, NULL},
};
static const lab_warp_row r_vote[] = {
    {"__all_sync(full, lane < 32)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__all_sync(full, lane != 7)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__any_sync(full, lane == 17)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__any_sync(full, lane > 31)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__ballot_sync(full, lane % 3 == 0)", 32, LAB_WARP_HEX, NULL, NULL},
    {"rank: __popc(ballot & %lanemask_lt) (cupat_dev::warp_ballot_rank)", 32, LAB_WARP_DEC, NULL, NULL},
    {"lanes 0-15: __ballot_sync(0x0000ffff, lane % 3 == 0)", 32, LAB_WARP_HEX, NULL, NULL},
};
static const lab_warp_row r_reduce[] = {
    {"__reduce_add_sync(full, lane)", 32, LAB_WARP_DEC, NULL, NULL},
    {"lanes 0-15: __reduce_add_sync(0x0000ffff, lane)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__reduce_min_sync(full, s), s = 7 lane % 32 - 10 (int)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__reduce_max_sync(full, s)", 32, LAB_WARP_DEC, NULL, NULL},
    {"__reduce_and_sync(full, lane | 0x20)", 32, LAB_WARP_HEX, NULL, NULL},
    {"__reduce_or_sync(full, 1 << lane % 8)", 32, LAB_WARP_HEX, NULL, NULL},
    {"__reduce_xor_sync(full, 1 << lane % 5)", 32, LAB_WARP_HEX, NULL, NULL},
};
static const lab_warp_row r_match[] = {
    {"__match_any_sync(full, lane % 3)", 32, LAB_WARP_HEX, NULL, NULL},
    {"__match_any_sync(full, lane / 8)", 32, LAB_WARP_HEX, NULL, NULL},
    {"__match_all_sync(full, 7, &pred)", 32, LAB_WARP_HEX, NULL, NULL},
    {"  its pred", 32, LAB_WARP_DEC, NULL, NULL},
    {"__match_all_sync(full, lane / 16, &pred)", 32, LAB_WARP_HEX, NULL, NULL},
    {"  its pred", 32, LAB_WARP_DEC, NULL, NULL},
    {"cupat_dev::warp_match_any(lane odd ? -0.0f : +0.0f): bits, not values", 32, LAB_WARP_HEX, NULL, NULL},
};

#define ROWS(r) (int)(sizeof(r) / sizeof((r)[0])), r
static const lab_warp_exp exps[LAB_WARP_NEXP] = {
    [LAB_WARP_BROADCAST] = {"broadcast", "broadcast a lane's value (test_shfl_broadcast)",
                            "16 threads, v = lane", "every lane reads srcLane 2 of its segment", ROWS(r_broadcast)},
    [LAB_WARP_UP] = {"up", "shift up by 2 (test_shfl_up)", "16 threads, v = lane",
                     "lanes below delta keep their own value: no wrap", ROWS(r_up)},
    [LAB_WARP_DOWN] = {"down", "shift down by 2 (test_shfl_down)", "16 threads, v = lane",
                       "the top delta lanes keep their own value", ROWS(r_down)},
    [LAB_WARP_WRAP] = {"wrap", "wrap-around shift by 2 (test_shfl_wrap)", "16 threads, v = lane",
                       "__shfl_sync takes srcLane modulo width: a rotation", ROWS(r_wrap)},
    [LAB_WARP_XOR] = {"xor", "butterfly, laneMask 1 (test_shfl_xor)", "16 threads, v = lane",
                      "lane i reads lane i ^ laneMask: neighbours swap (the reduction's step)", ROWS(r_xor)},
    [LAB_WARP_XOR_ARRAY] = {"xor_array", "butterfly over an array (test_shfl_xor_array)",
                            "4 threads, value[i] = 4 lane + i", "a shuffle moves one register: an array "
                            "takes one shuffle per element", ROWS(r_xor_array)},
    [LAB_WARP_SWAP] = {"swap", "array swap, firstIdx 0, secondIdx 3 (test_shfl_swap)",
                       "4 threads, value[i] = 4 lane + i",
                       "exchange chosen elements between lanes with a local swap around one xor shuffle; "
                       "the book's predicate (lane / mask == 0) holds for lane 0 only, so lanes 2-3 just "
                       "exchange value[3]", ROWS(r_swap)},
    [LAB_WARP_WIDTH] = {"width", "the width and mask rules", "32 threads, v = lane",
                        "width cuts the warp into independent segments; srcLane is taken modulo width; "
                        "an xor partner in a later segment gives the lane its own value, one in an "
                        "earlier segment is read; only lanes in the mask may call", ROWS(r_width)},
    [LAB_WARP_HALF] = {"half", "__half, __half2, __nv_bfloat16, __nv_bfloat162 shuffles", "32 threads",
                       "the fp16/bf16 overloads move 16- and 32-bit values; a pair moves as one word",
                       ROWS(r_half)},
    [LAB_WARP_VOTE] = {"vote", "__all_sync, __any_sync, __ballot_sync", "32 threads",
                       "one predicate a lane, one answer for the warp; popc(ballot & lanemask_lt) is "
                       "where a compaction writes", ROWS(r_vote)},
    [LAB_WARP_REDUCE] = {"reduce", "__reduce_*_sync (sm_80+)", "32 threads",
                         "one instruction reduces 32-bit integers over the mask's lanes", ROWS(r_reduce)},
    [LAB_WARP_MATCH] = {"match", "__match_any_sync, __match_all_sync (sm_70+)", "32 threads",
                        "which lanes hold the same value (hash-grouping, histogram conflicts)", ROWS(r_match)},
};

const lab_warp_exp *lab_warp_get(int e)
{
    return e >= 0 && e < LAB_WARP_NEXP ? &exps[e] : NULL;
}

int lab_warp_find(const char *name)
{
    for (int e = 0; e < LAB_WARP_NEXP; e++)
        if (!strcmp(name, exps[e].name)) return e;
    return -1;
}

int lab_warp_parse(const char *line, double *v, int max)
{
    int n = 0;
    char *end;
    while (line && *line && n < max) {
        double x = strtod(line, &end);
        if (end == line) break;
        v[n++] = x;
        line = end;
    }
    return n;
}

/* ------------------------------------------------------ the host model -- */
/* The CUDA rules (Programming Guide, PTX shfl.sync) for a power-of-two
 * width w: the segment of lane l starts at b = l & ~(w-1).
 *   idx:  lane b + (src mod w)
 *   up:   l - d when l - d >= b, else l
 *   down: l + d when l + d < b + w, else l
 *   xor:  l ^ m when l ^ m < b + w (an earlier segment included), else l */
static int seg(int l, int w) { return l & ~(w - 1); }
static int s_idx(int l, int src, int w) { return seg(l, w) + (src & (w - 1)); }
static int s_up(int l, int d, int w) { return l - d >= seg(l, w) ? l - d : l; }
static int s_down(int l, int d, int w) { return l + d < seg(l, w) + w ? l + d : l; }
static int s_xor(int l, int m, int w) { return (l ^ m) < seg(l, w) + w ? l ^ m : l; }

static double popc(unsigned v)
{
    int c = 0;
    for (; v; v &= v - 1) c++;
    return c;
}
/* A ballot: bit j set where lane j's predicate holds. */
enum { P_LT32, P_NE7, P_EQ17, P_GT31, P_MOD3, P_MOD3_LOW16, P_SAME_MOD3, P_SAME_DIV8, P_SAME_MOD2 };
static unsigned ballot(int p, int l)
{
    unsigned b = 0;
    for (int j = 0; j < 32; j++) {
        int t = p == P_LT32 ? j < 32 : p == P_NE7 ? j != 7 : p == P_EQ17 ? j == 17 : p == P_GT31 ? j > 31
              : p == P_MOD3 ? j % 3 == 0 : p == P_MOD3_LOW16 ? j < 16 && j % 3 == 0
              : p == P_SAME_MOD3 ? j % 3 == l % 3 : p == P_SAME_DIV8 ? j / 8 == l / 8 : j % 2 == l % 2;
        if (t) b |= 1u << j;
    }
    return b;
}

void lab_warp_expected(int e, int r, double v[LAB_WARP_MAXV])
{
    for (int i = 0; i < LAB_WARP_MAXV; i++) v[i] = NAN;
    const int BD = 16;
    switch (e) {
    case LAB_WARP_BROADCAST:
        for (int l = 0; l < 16; l++) v[l] = s_idx(l, 2, BD);
        return;
    case LAB_WARP_UP:
        for (int l = 0; l < 16; l++) v[l] = s_up(l, 2, BD);
        return;
    case LAB_WARP_DOWN:
        for (int l = 0; l < 16; l++) v[l] = s_down(l, 2, BD);
        return;
    case LAB_WARP_WRAP:
        for (int l = 0; l < 16; l++) v[l] = s_idx(l, l + 2, BD);
        return;
    case LAB_WARP_XOR:
        for (int l = 0; l < 16; l++) v[l] = s_xor(l, 1, BD);
        return;
    case LAB_WARP_XOR_ARRAY:
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < 4; i++) v[4 * l + i] = 4 * s_xor(l, 1, BD) + i;
        return;
    case LAB_WARP_SWAP: {
        int val[4][4];
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < 4; i++) val[l][i] = 4 * l + i;
        for (int l = 0; l < 4; l++)
            if (l / 1 == 0) { int t = val[l][0]; val[l][0] = val[l][3]; val[l][3] = t; }
        int x[4];
        for (int l = 0; l < 4; l++) x[l] = val[s_xor(l, 1, BD)][3];
        for (int l = 0; l < 4; l++) val[l][3] = x[l];
        for (int l = 0; l < 4; l++)
            if (l / 1 == 0) { int t = val[l][0]; val[l][0] = val[l][3]; val[l][3] = t; }
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < 4; i++) v[4 * l + i] = val[l][i];
        return;
    }
    case LAB_WARP_WIDTH:
        for (int l = 0; l < 32; l++) {
            if (r <= 5) v[l] = s_idx(l, 0, 1 << r);
            else if (r == 6) v[l] = s_idx(l, 20, 16);
            else if (r == 7) v[l] = s_xor(l, 8, 8);
            else if (r == 8) v[l] = s_up(l, 3, 8);
            else if (r == 9) v[l] = l < 16 ? 15 - l : l;
        }
        return;
    case LAB_WARP_HALF:
        for (int l = 0; l < 32; l++) {
            int d = s_down(l, 1, 32), u = s_up(l, 3, 32);
            switch (r) {
            case 0: v[l] = (l ^ 1) * 0.5; break;
            case 1: v[l] = d * 0.5; break;
            case 2: v[l] = -d; break;
            case 3: v[l] = (31 - l) + 0.5; break;
            case 4: v[l] = u; break;
            case 5: v[l] = u * 0.25; break;
            case 6: v[l] = (l ^ 16) * 0.5; break;
            }
        }
        return;
    case LAB_WARP_VOTE: {
        unsigned b3 = ballot(P_MOD3, 0), b3h = ballot(P_MOD3_LOW16, 0);
        for (int l = 0; l < 32; l++) {
            switch (r) {
            case 0: v[l] = ballot(P_LT32, l) == 0xffffffffu; break;
            case 1: v[l] = ballot(P_NE7, l) == 0xffffffffu; break;
            case 2: v[l] = ballot(P_EQ17, l) != 0; break;
            case 3: v[l] = ballot(P_GT31, l) != 0; break;
            case 4: v[l] = b3; break;
            case 5: v[l] = popc(b3 & ((1u << l) - 1u)); break;
            case 6: v[l] = l < 16 ? (double)b3h : -1.0; break;
            }
        }
        return;
    }
    case LAB_WARP_REDUCE: {
        unsigned add = 0, addh = 0, and_ = ~0u, or_ = 0, xor_ = 0;
        int mn = 1 << 30, mx = -(1 << 30);
        for (int l = 0; l < 32; l++) {
            int s = (l * 7) % 32 - 10;
            add += (unsigned)l;
            addh += l < 16 ? (unsigned)l : 0u;
            mn = s < mn ? s : mn;
            mx = s > mx ? s : mx;
            and_ &= (unsigned)l | 0x20u;
            or_ |= 1u << (l % 8);
            xor_ ^= 1u << (l % 5);
        }
        for (int l = 0; l < 32; l++) {
            switch (r) {
            case 0: v[l] = add; break;
            case 1: v[l] = l < 16 ? (double)addh : -1.0; break;
            case 2: v[l] = mn; break;
            case 3: v[l] = mx; break;
            case 4: v[l] = and_; break;
            case 5: v[l] = or_; break;
            case 6: v[l] = xor_; break;
            }
        }
        return;
    }
    case LAB_WARP_MATCH:
        for (int l = 0; l < 32; l++) {
            switch (r) {
            case 0: v[l] = ballot(P_SAME_MOD3, l); break;
            case 1: v[l] = ballot(P_SAME_DIV8, l); break;
            case 2: v[l] = 0xffffffffu; break; /* every lane holds 7 */
            case 3: v[l] = 1; break;
            case 4: v[l] = 0; break; /* lanes 0-15 hold 0, 16-31 hold 1 */
            case 5: v[l] = 0; break;
            case 6: v[l] = ballot(P_SAME_MOD2, l); break;
            }
        }
        return;
    }
}

/* ------------------------------------------------------------- the run -- */

cupat_status lab_warp_run(cupat_ctx *ctx, int e, double got[LAB_WARP_MAXROWS][LAB_WARP_MAXV])
{
    const size_t bytes = sizeof(double) * LAB_WARP_MAXROWS * LAB_WARP_MAXV;
    double *d = NULL;
    cupat_status s = cupat_malloc(ctx, (void **)&d, bytes);
    if (!s) s = cupat_memset(ctx, d, 0xFF, bytes); /* NaN: an unwritten lane never matches */
    if (!s) s = cupat__lab_warp(ctx, e, d);
    if (!s) s = cupat_memcpy(ctx, got, d, bytes);
    if (!s) s = cupat_sync(ctx);
    if (d) cupat_free(ctx, d);
    return s;
}
