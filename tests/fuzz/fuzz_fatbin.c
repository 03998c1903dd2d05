/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_fatbin.c — libFuzzer target: the ELF and fatbin-container walker behind
 * `cupat occupancy --library` (lab/exec/occupancy_library.c). Each input is
 * read twice: as an ELF file (its .nv_fatbin section, walked where found) and
 * as a .nv_fatbin section itself. A section must lie inside the input; the
 * containers a walk returns must lie inside the section, in order, without
 * overlap; a failed walk must return nothing and say why. */
#include "exec/occupancy_library.h"

#include <stdint.h>
#include <stdlib.h>

/* occupancy_library.c asks dladdr where libcupat's code lies; the fuzzer
 * links no libcupat. */
const char *cupat_version(void) { return "fuzz"; }

static void walk(const uint8_t *p, size_t len)
{
    occ_container *c = NULL;
    size_t n = 0;
    char why[256] = "", d[160];
    if (occ_fatbin_walk(p, len, &c, &n, why, sizeof why) != 0) {
        if (c || n || !why[0]) abort();
        return;
    }
    size_t end = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].offset < end || c[i].size < 16 || c[i].offset > len || c[i].size > len - c[i].offset) abort();
        end = c[i].offset + c[i].size;
        occ_container_describe(&c[i], d, sizeof d);
        (void)occ_container_runs_on(&c[i], 9, 0);
    }
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0, len = 0;
    char why[256] = "";
    int s = occ_elf_section(data, size, ".nv_fatbin", &off, &len, why, sizeof why);
    if (s == 0) {
        if (off > size || len > size - off) abort();
        walk(data + off, len);
    } else if (!why[0]) {
        abort();
    }
    walk(data, size);
    return 0;
}
