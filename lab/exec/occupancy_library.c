/* SPDX-License-Identifier: Apache-2.0 */
/* occupancy_library.c — the kernels compiled into libcupat, found in the ELF
 * file that holds it: its .nv_fatbin section and the fatbin containers in it
 * (occupancy_library.h describes the format). Plain C, no CUDA: every size
 * read from the file is checked against what is left before it is used. */
#define _GNU_SOURCE /* dladdr1, RTLD_DEFAULT */
#include "exec/occupancy_library.h"

#include "cupat.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned rd16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ------------------------------------------------------------------ ELF -- */
#define ELF64_EHDR 64u
#define ELF64_SHDR 64u
#define SHT_NOBITS_ 8u
#define SHN_XINDEX_ 0xffffu

int occ_elf_section(const unsigned char *elf, size_t len, const char *name, size_t *off, size_t *size, char *why,
                    size_t why_len)
{
    if (len < ELF64_EHDR) {
        snprintf(why, why_len, "not an ELF file: %zu bytes, less than an ELF header", len);
        return -1;
    }
    if (memcmp(elf, "\177ELF", 4) != 0) {
        snprintf(why, why_len, "not an ELF file (no \\177ELF at its start)");
        return -1;
    }
    if (elf[4] != 2 || elf[5] != 1) {
        snprintf(why, why_len, "an ELF file of class %d, data %d: only 64-bit little-endian ELF is read", elf[4],
                 elf[5]);
        return -1;
    }
    const uint64_t shoff = rd64(elf + 0x28);
    const unsigned shentsize = rd16(elf + 0x3A);
    uint64_t shnum = rd16(elf + 0x3C), shstrndx = rd16(elf + 0x3E);
    if (shoff == 0) {
        snprintf(why, why_len, "the ELF file has no section headers");
        return -1;
    }
    if (shentsize < ELF64_SHDR || shoff > len || len - shoff < ELF64_SHDR) {
        snprintf(why, why_len, "ELF section headers at offset %llu (entries of %u bytes) past the end of the file (%zu bytes)",
                 (unsigned long long)shoff, shentsize, len);
        return -1;
    }
    const unsigned char *sh0 = elf + shoff;
    if (shnum == 0) shnum = rd64(sh0 + 32);            /* more than 0xff00 sections: the count is here */
    if (shstrndx == SHN_XINDEX_) shstrndx = rd32(sh0 + 40); /* and the names' index here */
    if (shnum > (len - shoff) / shentsize) {
        snprintf(why, why_len, "%llu ELF section headers at offset %llu run past the end of the file (%zu bytes)",
                 (unsigned long long)shnum, (unsigned long long)shoff, len);
        return -1;
    }
    if (shstrndx >= shnum) {
        snprintf(why, why_len, "ELF section-name table index %llu, but %llu sections", (unsigned long long)shstrndx,
                 (unsigned long long)shnum);
        return -1;
    }
    const unsigned char *ss = sh0 + shstrndx * shentsize;
    const uint64_t str_off = rd64(ss + 24), str_size = rd64(ss + 32);
    if (rd32(ss + 4) == SHT_NOBITS_ || str_off > len || str_size > len - str_off) {
        snprintf(why, why_len, "ELF section names at offset %llu, %llu bytes: past the end of the file (%zu bytes)",
                 (unsigned long long)str_off, (unsigned long long)str_size, len);
        return -1;
    }
    const char *strtab = (const char *)elf + str_off;
    const size_t want = strlen(name);
    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *sh = sh0 + i * shentsize;
        const uint32_t nm = rd32(sh);
        /* the name and its NUL inside the table */
        if (nm >= str_size || str_size - nm < want + 1 || memcmp(strtab + nm, name, want + 1) != 0) continue;
        const uint64_t o = rd64(sh + 24), s = rd64(sh + 32);
        if (rd32(sh + 4) == SHT_NOBITS_) {
            snprintf(why, why_len, "ELF section %s holds no data in the file (NOBITS)", name);
            return -1;
        }
        if (o > len || s > len - o) {
            snprintf(why, why_len, "ELF section %s at offset %llu, %llu bytes: past the end of the file (%zu bytes)",
                     name, (unsigned long long)o, (unsigned long long)s, len);
            return -1;
        }
        *off = (size_t)o;
        *size = (size_t)s;
        return 0;
    }
    snprintf(why, why_len, "no ELF section %s", name);
    return 1;
}

/* --------------------------------------------------------------- fatbin -- */
#define CONTAINER_HEADER 16u
#define ENTRY_HEADER_MIN 16u /* kind, version, header size, payload size */
#define ENTRY_FLAG_COMPRESSED 0x8000u
#define ENTRY_FLAG_COMPRESSED_OLD 0x2000u
#define ENTRY_FLAG_ARCH_SPECIFIC 0x100000u /* sm_90a */

/* The entries of container c, bytes p[0, len): 0, or -1 with why. */
static int walk_entries(const unsigned char *p, size_t len, size_t base, size_t index, occ_container *c, char *why,
                        size_t why_len)
{
    size_t o = 0;
    while (o < len) {
        const size_t left = len - o;
        if (left < ENTRY_HEADER_MIN) {
            snprintf(why, why_len, "fatbin container %zu: an entry at offset %zu is cut short (%zu bytes of its header)",
                     index, base + o, left);
            return -1;
        }
        const unsigned char *e = p + o;
        const uint32_t hs = rd32(e + 4);
        const uint64_t ps = rd64(e + 8);
        if (hs < ENTRY_HEADER_MIN || hs > left || ps > left - hs) {
            snprintf(why, why_len,
                     "fatbin container %zu: the entry at offset %zu (header %u bytes, payload %llu) runs past the "
                     "container's end (%zu bytes left)",
                     index, base + o, hs, (unsigned long long)ps, left);
            return -1;
        }
        if (c->nentries < OCC_FATBIN_MAX_ENTRIES) {
            occ_fatbin_entry *d = &c->e[c->nentries];
            const uint64_t flags = hs >= 48 ? rd64(e + 40) : 0;
            d->kind = (int)rd16(e);
            d->arch = hs >= 32 ? rd32(e + 28) : 0;
            d->compressed = (flags & (ENTRY_FLAG_COMPRESSED | ENTRY_FLAG_COMPRESSED_OLD)) != 0;
            d->arch_specific = (flags & ENTRY_FLAG_ARCH_SPECIFIC) != 0;
        }
        /* the source file's name, where it lies inside the entry's header */
        if (hs >= 40 && !c->source[0]) {
            const uint32_t no = rd32(e + 32), nl = rd32(e + 36);
            if (no >= 40 && no <= hs && nl > 0 && nl <= hs - no) {
                size_t n = nl < sizeof c->source ? nl : sizeof c->source - 1;
                memcpy(c->source, e + no, n);
                c->source[n] = 0;
            }
        }
        c->nentries++;
        o += hs + (size_t)ps;
    }
    return 0;
}

int occ_fatbin_walk(const unsigned char *sec, size_t len, occ_container **out, size_t *n, char *why, size_t why_len)
{
    occ_container *c = NULL;
    size_t nc = 0, cap = 0, o = 0;
    *out = NULL;
    *n = 0;
    while (o < len) {
        const size_t left = len - o;
        if (left < CONTAINER_HEADER) {
            snprintf(why, why_len, "fatbin section cut short: %zu bytes at offset %zu, less than a container header (%u)",
                     left, o, CONTAINER_HEADER);
            goto fail;
        }
        const unsigned char *h = sec + o;
        const uint32_t magic = rd32(h);
        const unsigned version = rd16(h + 4), hs = rd16(h + 6);
        const uint64_t payload = rd64(h + 8);
        if (magic != OCC_FATBIN_MAGIC) {
            snprintf(why, why_len, "fatbin container %zu at offset %zu: magic 0x%08x, not 0x%08x", nc, o,
                     (unsigned)magic, OCC_FATBIN_MAGIC);
            goto fail;
        }
        if (hs < CONTAINER_HEADER || hs > left || payload > left - hs) {
            snprintf(why, why_len,
                     "fatbin container %zu at offset %zu: header %u bytes and payload %llu run past the end of the "
                     "section (%zu bytes left)",
                     nc, o, hs, (unsigned long long)payload, left);
            goto fail;
        }
        if (nc == cap) {
            cap = cap ? 2 * cap : 64;
            occ_container *g = realloc(c, cap * sizeof *c);
            if (!g) {
                snprintf(why, why_len, "out of host memory (%zu fatbin containers)", cap);
                goto fail;
            }
            c = g;
        }
        occ_container *k = &c[nc];
        memset(k, 0, sizeof *k);
        k->offset = o;
        k->size = hs + (size_t)payload;
        k->version = version;
        k->header_size = hs;
        if (walk_entries(h + hs, (size_t)payload, o + hs, nc, k, why, why_len)) goto fail;
        nc++;
        o += k->size;
        const size_t next = (o + 7) & ~(size_t)7; /* the next one starts 8-byte aligned */
        o = next < len ? next : len;
    }
    *out = c;
    *n = nc;
    return 0;
fail:
    free(c);
    return -1;
}

void occ_container_describe(const occ_container *c, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = 0;
    const int shown = c->nentries < OCC_FATBIN_MAX_ENTRIES ? c->nentries : OCC_FATBIN_MAX_ENTRIES;
    for (int i = 0; i < shown && u < len; i++) {
        const occ_fatbin_entry *e = &c->e[i];
        const char *what = e->kind == OCC_FATBIN_ENTRY_PTX ? "PTX" : e->kind == OCC_FATBIN_ENTRY_CUBIN ? "cubin" : "?";
        u += (size_t)snprintf(buf + u, len - u, "%s%s_%u%s %s", i ? " + " : "",
                              e->kind == OCC_FATBIN_ENTRY_PTX ? "compute" : "sm", e->arch, e->arch_specific ? "a" : "",
                              what);
    }
    if (c->nentries > shown && u < len) snprintf(buf + u, len - u, " + %d more", c->nentries - shown);
    if (c->nentries == 0) snprintf(buf, len, "empty");
}

int occ_container_runs_on(const occ_container *c, int major, int minor)
{
    const unsigned dev = (unsigned)(major * 10 + minor);
    if (c->nentries > OCC_FATBIN_MAX_ENTRIES) return 1; /* not all described: let the driver say */
    for (int i = 0; i < c->nentries; i++) {
        const occ_fatbin_entry *e = &c->e[i];
        if (e->kind == OCC_FATBIN_ENTRY_PTX && e->arch <= dev) return 1;
        if (e->kind == OCC_FATBIN_ENTRY_CUBIN && e->arch / 10 == (unsigned)major &&
            (e->arch_specific ? e->arch == dev : e->arch <= dev))
            return 1;
    }
    return 0;
}

/* ----------------------------------------------------------------- file -- */
int occ_fatbin_open(const char *path, occ_fatbin *f, char *why, size_t why_len)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(why, why_len, "%s: cannot open it", path);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || st.st_size <= 0) {
        snprintf(why, why_len, "%s: empty, or not a file", path);
        close(fd);
        return -1;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        snprintf(why, why_len, "%s: cannot map it", path);
        return -1;
    }
    f->map = m;
    f->map_size = (size_t)st.st_size;
    size_t off = 0, size = 0;
    char w[256];
    int s = occ_elf_section(m, f->map_size, ".nv_fatbin", &off, &size, w, sizeof w);
    if (s) {
        snprintf(why, why_len, "%s: %s%s", path, w, s > 0 ? " (no device code in it)" : "");
        occ_fatbin_close(f);
        return -1;
    }
    f->section = (const unsigned char *)m + off;
    f->section_size = size;
    if (occ_fatbin_walk(f->section, size, &f->c, &f->n, w, sizeof w)) {
        snprintf(why, why_len, "%s: %s", path, w);
        occ_fatbin_close(f);
        return -1;
    }
    return 0;
}

void occ_fatbin_close(occ_fatbin *f)
{
    if (f->map) munmap(f->map, f->map_size);
    free(f->c);
    memset(f, 0, sizeof *f);
}

int occ_library_file(const char *shared_hint, char *path, size_t len, const char **how, char *why, size_t why_len)
{
    Dl_info info;
    struct link_map *lm = NULL;
    const void *addr = (const void *)(uintptr_t)&cupat_version;
    if (!dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) {
        snprintf(why, why_len, "dladdr: cannot tell which file holds cupat_version");
        return -1;
    }
    if (lm->l_name && lm->l_name[0]) { /* a shared object: libcupat.so */
        snprintf(path, len, "%s", lm->l_name);
        *how = "shared";
        return 0;
    }
    /* linked into the program: the build's libcupat.so when it is there */
    if (shared_hint && shared_hint[0] && access(shared_hint, R_OK) == 0) {
        snprintf(path, len, "%s", shared_hint);
        *how = "hint";
        return 0;
    }
    ssize_t n = readlink("/proc/self/exe", path, len - 1);
    if (n <= 0) {
        snprintf(why, why_len, "libcupat is linked into this program, and /proc/self/exe cannot be read");
        return -1;
    }
    path[n] = 0;
    *how = "program";
    return 0;
}

/* ---------------------------------------------------------------- names -- */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* libstdc++'s __cxa_demangle: in the process where something linked it,
 * else from libstdc++.so.6 loaded for it (a C program linked with
 * --as-needed, the default on Debian and Ubuntu, keeps no libstdc++ when no
 * object calls into it); NULL where neither is there. */
static demangle_fn demangler(void)
{
    static demangle_fn dem;
    static int looked;
    if (!looked) {
        looked = 1;
        dem = (demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
        void *lib = dem ? NULL : dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (lib && !(dem = (demangle_fn)(uintptr_t)dlsym(lib, "__cxa_demangle"))) dlclose(lib);
    }
    return dem;
}

int occ_have_demangler(void) { return demangler() != NULL; }

void occ_kernel_display_name(const char *mangled, char *buf, size_t width)
{
    demangle_fn dem = demangler();
    int st = -1;
    char *d = dem && mangled[0] == '_' && mangled[1] == 'Z' ? dem(mangled, NULL, NULL, &st) : NULL;
    const char *s = d && st == 0 ? d : mangled;
    if (!strncmp(s, "void ", 5)) s += 5;
    size_t n = strlen(s);
    if (d && st == 0 && n && s[n - 1] == ')') { /* drop the parameter list */
        int depth = 0;
        for (size_t i = n; i-- > 0;) {
            if (s[i] == ')') depth++;
            else if (s[i] == '(' && --depth == 0) {
                n = i;
                break;
            }
        }
    }
    if (width < 2) width = 2;
    if (n > width) { /* cut, and say so */
        memcpy(buf, s, width - 1);
        buf[width - 1] = '~';
        buf[width] = 0;
    } else {
        memcpy(buf, s, n);
        buf[n] = 0;
    }
    free(d);
}
