/* SPDX-License-Identifier: Apache-2.0 */
/* cuda_runtime.h of the build without the CUDA toolkit: the runtime API
 * stand-in (cuda_runtime_api.h beside it). */
#include "cuda_runtime_api.h"
