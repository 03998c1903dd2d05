/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_png.c — libFuzzer target: the PNG reader (libpng behind cupat's
 * buffered input), round trip through the PNG writer. */
#include "fuzz_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_image(data, size, "\x89PNG\r\n\x1a\n", "png");
}
