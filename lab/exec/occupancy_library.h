/* SPDX-License-Identifier: Apache-2.0 */
/* occupancy_library.h — `cupat occupancy --library`: every kernel compiled
 * into libcupat, found without a list kept by hand, and the calculator of
 * occupancy.h held against the driver's occupancy API for each.
 *
 * How the kernels are found: nvcc puts each translation unit's device code
 * in a fatbin container, and the linker gathers the containers of every
 * object in the ELF section .nv_fatbin of the library (or of the program
 * that links libcupat statically). A container is a 16-byte header (u32
 * magic 0xBA55ED50, u16 version, u16 header size, u64 payload size) and its
 * entries, each a header (u16 kind: 1 PTX, 2 cubin; u32 header size; u64
 * payload size; the architecture at byte 28; the source file's name at an
 * offset the header gives) and its payload (compressed or not); containers
 * lie back to back, 8-byte aligned. The walker below is plain C, reads only
 * headers, and checks every size against its bounds: a malformed section is
 * an error with the offset, never a read past the end.
 *
 * What is compared (occupancy_library_cuda.c): each container loaded with
 * cuModuleLoadData, its kernels enumerated (cuModuleEnumerateFunctions,
 * CUDA 12.4), their registers, static shared memory and limits read, and for
 * block sizes 32 .. max threads (step 32) and several dynamic shared-memory
 * sizes (the opt-in limit included), occ_compute's blocks an SM beside
 * cuOccupancyMaxActiveBlocksPerMultiprocessor's. The driver API is reached
 * through cudaGetDriverEntryPointByVersion: nothing links libcuda. */
#ifndef CUPAT_LAB_OCCUPANCY_LIBRARY_H
#define CUPAT_LAB_OCCUPANCY_LIBRARY_H

#include "exec/occupancy.h"

#include <stddef.h>

#define OCC_FATBIN_MAGIC 0xBA55ED50u
#define OCC_FATBIN_ENTRY_PTX 1
#define OCC_FATBIN_ENTRY_CUBIN 2
#define OCC_FATBIN_MAX_ENTRIES 8 /* entries described; a container may hold more */

typedef struct occ_fatbin_entry {
    int kind;          /* OCC_FATBIN_ENTRY_PTX, _CUBIN, or another number */
    unsigned arch;     /* 90 for sm_90 / compute_90 */
    int arch_specific; /* sm_90a: runs on that architecture only */
    int compressed;
} occ_fatbin_entry;

typedef struct occ_container {
    size_t offset;         /* from the start of the section */
    size_t size;           /* header + payload */
    unsigned version;      /* 1 */
    unsigned header_size;  /* 16 */
    int nentries;          /* all of them */
    occ_fatbin_entry e[OCC_FATBIN_MAX_ENTRIES]; /* the first OCC_FATBIN_MAX_ENTRIES */
    char source[160];      /* the source file an entry names: nvcc records it with -lineinfo
                              (libcupat builds so); "" when none, and for a device link */
} occ_container;

/* The section called name in the 64-bit little-endian ELF image elf[0, len):
 * 0 with *off and *size (inside the image), 1 when the image has no such
 * section, -1 when the image is not such an ELF or a header points past its
 * end (why says what, and where). */
int occ_elf_section(const unsigned char *elf, size_t len, const char *name, size_t *off, size_t *size, char *why,
                    size_t why_len);

/* Walk the containers of a .nv_fatbin section sec[0, len): 0 with *out
 * (malloc'd, *n of them; the caller frees), or -1 with why (bad magic,
 * truncated header, a size past the end, an entry outside its container),
 * *out NULL. An empty section gives 0 containers. */
int occ_fatbin_walk(const unsigned char *sec, size_t len, occ_container **out, size_t *n, char *why, size_t why_len);

/* "compute_90 PTX + sm_90 cubin" */
void occ_container_describe(const occ_container *c, char *buf, size_t len);
/* Has the container code the device of compute capability major.minor can
 * run: a cubin of that major architecture no newer than it (sm_XYa: that
 * one exactly), or PTX no newer than it (the driver compiles it)? */
int occ_container_runs_on(const occ_container *c, int major, int minor);

/* A file's fatbin containers. */
typedef struct occ_fatbin {
    char path[1024];
    void *map;                  /* the file, mapped read-only */
    size_t map_size;
    const unsigned char *section; /* .nv_fatbin inside the mapping */
    size_t section_size;
    occ_container *c;
    size_t n;
} occ_fatbin;

/* Map path, find .nv_fatbin, walk it: 0, or -1 with why (no file, not an
 * ELF, no .nv_fatbin: no device code, a malformed section). */
int occ_fatbin_open(const char *path, occ_fatbin *f, char *why, size_t why_len);
void occ_fatbin_close(occ_fatbin *f);

/* The file that holds libcupat's code in this process: the shared library
 * (found by dladdr of cupat_version), or, when libcupat is linked into the
 * program statically, `shared_hint` if that file exists (the build's
 * libcupat.so: the library's kernels alone), else the program itself
 * (/proc/self/exe: its own kernels, and those of the libcupat objects the
 * static link pulled in, which need not be all). *how says which
 * ("shared", "hint", "program"). 0, or -1 with why. */
int occ_library_file(const char *shared_hint, char *path, size_t len, const char **how, char *why, size_t why_len);

/* ------------------------------------------------ against the driver -- */

typedef struct occ_lib_kernel {
    char *name;            /* mangled (malloc'd) */
    int container;         /* index in the occ_fatbin */
    int regs, max_threads; /* NUM_REGS, MAX_THREADS_PER_BLOCK */
    int static_smem;       /* SHARED_SIZE_BYTES */
    int max_dyn;           /* MAX_DYNAMIC_SHARED_SIZE_BYTES after the opt-in */
    int local_bytes;       /* LOCAL_SIZE_BYTES: spills and local arrays, for the reader */
    int checks;            /* configurations compared */
    int differ;            /* ... where the blocks an SM differ, no reason known */
    int explained;         /* ... where they differ for a reason the calculator does not model */
    int errors;            /* driver calls that failed on a configuration within the kernel's limits */
    char reason[200];      /* that reason ("" none): a compile-time cluster size, named barriers (inferred) */
    char first[200];       /* the first difference or error, in words */
} occ_lib_kernel;

typedef struct occ_lib_container {
    int loaded;            /* cuModuleLoadData took it */
    int foreign;           /* not loaded: no code for this GPU (e.g. a cubin for another architecture) */
    int kernels;           /* functions enumerated */
    char why[200];         /* not loaded: the driver's error */
} occ_lib_container;

typedef struct occ_lib_report {
    occ_lib_kernel *k;
    size_t nk;
    occ_lib_container *c; /* one per container of the occ_fatbin */
    size_t nc;
    long configs, differ, explained, errors; /* sums over the kernels */
    int containers_failed;                   /* had code for this GPU but did not load */
} occ_lib_report;

/* Load every container of f on CUDA device `device` (d: its figures from
 * occ_device_query), compare, unload. 0 with *r filled (r->differ, ->errors,
 * ->containers_failed say whether the calculator and the driver agree), or
 * -1 with why when the device or the driver API is out of reach (no driver,
 * one older than CUDA 12.4). occ_lib_report_free releases *r. The dynamic
 * shared-memory sizes tried: 0, 1 KiB, 16 KiB and the kernel's default
 * limit (48 KiB less its static), then, opted in (cuFuncSetAttribute), 100
 * KiB and the opt-in limit (227 KiB less its static on the H100). */
int occ_library_check(const occ_fatbin *f, int device, const occ_device *d, occ_lib_report *r, char *why,
                      size_t why_len);
void occ_lib_report_free(occ_lib_report *r);

/* The kernel's name for a table: demangled when the C++ runtime's demangler
 * is at hand (occ_have_demangler), "void " and the parameter list dropped;
 * longer than width characters, cut to width - 1 and a "~". buf holds
 * width + 1. Without the demangler, the mangled name, cut the same way. */
void occ_kernel_display_name(const char *mangled, char *buf, size_t width);
/* 1 where names are demangled: libstdc++'s __cxa_demangle is in the process,
 * or libstdc++.so.6 could be loaded for it (dlopen); else 0. */
int occ_have_demangler(void);

#endif
