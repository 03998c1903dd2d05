/* SPDX-License-Identifier: Apache-2.0 */
/* trace.h — NVTX ranges, so that an Nsight Systems timeline names the
 * primitive: CUPAT_TRACE_CALL() opens a range named after the public
 * function it stands in (its first statement) and closes it when the
 * function returns, on every path; the first cupat__select of the call opens
 * one inside it named after the rung (cupat__trace_rung), closed with the
 * call's. Calls inside calls nest. Built with CUPAT_NVTX=0 (CMake
 * -DCUPAT_NVTX=OFF) both are nothing; with no tool attached each range costs
 * two calls through a pointer to a no-op (docs/api.md). */
#ifndef CUPAT_TRACE_H
#define CUPAT_TRACE_H

#ifndef CUPAT_NVTX
#define CUPAT_NVTX 1
#endif

#if CUPAT_NVTX
#ifdef __cplusplus
extern "C" {
#endif
/* Open the call's range (returns its depth) / close it with its rung's. */
int cupat__trace_enter(const char *fn);
void cupat__trace_leave(const int *depth);
void cupat__trace_rung(const char *rung);
#ifdef __cplusplus
}
struct cupat__trace_scope {
    int depth;
    explicit cupat__trace_scope(const char *fn) : depth(cupat__trace_enter(fn)) {}
    ~cupat__trace_scope() { cupat__trace_leave(&depth); }
    cupat__trace_scope(const cupat__trace_scope &) = delete;
    cupat__trace_scope &operator=(const cupat__trace_scope &) = delete;
};
#define CUPAT_TRACE_CALL() cupat__trace_scope cupat__trace_call_(__func__)
#else
#define CUPAT_TRACE_CALL()                                                                   \
    __attribute__((cleanup(cupat__trace_leave))) const int cupat__trace_call_ = cupat__trace_enter(__func__)
#endif

#else /* !CUPAT_NVTX */
#define CUPAT_TRACE_CALL() ((void)0)
#define cupat__trace_rung(rung) ((void)0)
#endif

#endif
