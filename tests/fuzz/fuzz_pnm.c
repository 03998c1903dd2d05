/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_pnm.c — libFuzzer target: cupat's own PBM/PGM/PPM/PAM reader (P1 to
 * P7), round trip through the PAM writer (any channel count). */
#include "fuzz_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_image(data, size, "P", "pam");
}
