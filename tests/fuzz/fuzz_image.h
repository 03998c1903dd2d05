/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_image.h — what the image fuzz targets share. The input is read from
 * memory (cupat_image_read_memory, the same code as a file or a pipe); where
 * it decodes, the image is written again (cupat_image_write_stream, into
 * memory) and read back, and the same pixels must come back. A crash, a
 * sanitizer report, a leak or a failed round trip stops the fuzzer with the
 * input saved. */
#ifndef CUPAT_FUZZ_IMAGE_H
#define CUPAT_FUZZ_IMAGE_H

#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cupat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs that do not start with `magic` belong to another reader: -1 keeps
 * them out of this target's corpus. `out` is the format of the round trip. */
static int fuzz_image(const uint8_t *data, size_t size, const char *magic, const char *out)
{
    size_t m = strlen(magic);
    if (size < m || memcmp(data, magic, m) != 0) return -1;
    cupat_image img, back;
    if (cupat_image_read_memory(NULL, data, size, &img) != CUPAT_SUCCESS) return 0;
    size_t bytes = img.width * img.height * (size_t)img.channels;
    if (bytes <= (1u << 20)) { /* round trips of small images: keeps the rate up */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) abort();
        cupat_status s = cupat_image_write_stream(NULL, f, out, &img);
        if (fclose(f) != 0 || s != CUPAT_SUCCESS) abort();
        if (cupat_image_read_memory(NULL, buf, len, &back) != CUPAT_SUCCESS ||
            back.width != img.width || back.height != img.height ||
            back.channels != img.channels || memcmp(back.data, img.data, bytes) != 0)
            abort();
        cupat_image_free(&back);
        free(buf);
    }
    cupat_image_free(&img);
    return 0;
}

#endif
