// SPDX-License-Identifier: Apache-2.0
// memory_run.cuh — what the memory lab's .cu files share: the run (context,
// repetitions, the rows being filled), a new row, a timed row, the CUDA
// check, and the experiments each file defines (memory.cu dispatches).
#pragma once

#include "memory/memory.h"

#include "internal.h"
#include "lab_timing.cuh"

#include <stdarg.h>
#include <stdio.h>

namespace cupat_memlab {

using cupat_lab::Bufs;
using cupat_lab::copy;
using cupat_lab::fill;
using cupat_lab::median;
using cupat_lab::timed;

struct Run : cupat_lab::RunBase {
    int sms;
    lab_mem_opts opts;
};

// The next row (the last one again when the table is full), named by fmt.
lab_mem_row *add(Run &X, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Append to a row's note.
void note(lab_mem_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Time `launch` reps times; the row's ms and GB/s of `bytes` a launch.
template <class L> cupat_status time_row(Run &X, lab_mem_row *r, double bytes, L launch)
{
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, launch));
    r->ms = median(X.t, X.reps);
    r->value = r->ms > 0 ? bytes / (r->ms * 1e-3) * 1e-9 : 0;
    return CUPAT_SUCCESS;
}

#define LAUNCHED(name) cupat__launched(X.ctx, name)

// memory.cu: the sum of n words (wrapping) into *dsum (zeroed first), on X.s.
cupat_status sum_u32(Run &X, const unsigned *p, size_t n, unsigned *dsum);

// memory_global.cu: PCCP 4.3's offset-11 sweeps, the -G build, managed memory near the free memory.
cupat_status exp_segment(Run &X);
cupat_status exp_debug(Run &X);
cupat_status exp_oversub(Run &X);
// memory_shared.cu: arrays carved from one extern __shared__ buffer, the
// shared capacity a carveout selects, shared against global latency, the
// cache sweep.
cupat_status exp_carve(Run &X);
cupat_status exp_split(Run &X);
cupat_status exp_latency(Run &X);
cupat_status exp_cachesize(Run &X);

} // namespace cupat_memlab
