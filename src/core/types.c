/* SPDX-License-Identifier: Apache-2.0 */
/* types.c — the element types and operations every typed pattern shares
 * (reduce, scan, select, ...): sizes and names. */
#include "cupat.h"

#include <stddef.h>

size_t cupat_type_size(cupat_type t)
{
    switch (t) {
    case CUPAT_F32:
    case CUPAT_I32:
    case CUPAT_U32: return 4;
    case CUPAT_F64:
    case CUPAT_I64:
    case CUPAT_U64: return 8;
    }
    return 0;
}

const char *cupat_type_name(cupat_type t)
{
    switch (t) {
    case CUPAT_F32: return "f32";
    case CUPAT_F64: return "f64";
    case CUPAT_I32: return "i32";
    case CUPAT_U32: return "u32";
    case CUPAT_I64: return "i64";
    case CUPAT_U64: return "u64";
    }
    return "unknown";
}

const char *cupat_op_name(cupat_op op)
{
    switch (op) {
    case CUPAT_OP_SUM: return "sum";
    case CUPAT_OP_MIN: return "min";
    case CUPAT_OP_MAX: return "max";
    case CUPAT_OP_ARGMIN: return "argmin";
    case CUPAT_OP_ARGMAX: return "argmax";
    }
    return "unknown";
}
