/* SPDX-License-Identifier: Apache-2.0 */
/* trace.c — NVTX ranges of the public calls (trace.h): a per-thread depth
 * of open calls and, per depth, whether the call opened a rung range. */
#include "trace.h"

#if CUPAT_NVTX
#include <nvtx3/nvToolsExt.h>

#define DEPTHS 32 /* deeper calls (none today) get no rung range */
static _Thread_local int depth;
static _Thread_local unsigned char rung_open[DEPTHS];

int cupat__trace_enter(const char *fn)
{
    nvtxRangePushA(fn);
    if (depth < DEPTHS) rung_open[depth] = 0;
    return depth++;
}

void cupat__trace_leave(const int *d)
{
    if (*d < DEPTHS && rung_open[*d]) nvtxRangePop();
    nvtxRangePop();
    depth = *d;
}

/* The rung's own name (static storage, no formatting: a formatted
 * "pattern/rung" cost 50 ns a call with no tool attached); the call's range
 * around it says the pattern. */
void cupat__trace_rung(const char *rung)
{
    const int d = depth - 1; /* the innermost open call */
    if (d < 0 || d >= DEPTHS || rung_open[d]) return;
    nvtxRangePushA(rung);
    rung_open[d] = 1;
}
#endif
