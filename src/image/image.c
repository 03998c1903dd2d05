/* SPDX-License-Identifier: Apache-2.0 */
/* image.c — image files in and out: PNG through libpng (optional at build
 * time: CUPAT_HAVE_PNG); PBM/PGM/PPM/PAM by cupat's own code, always there;
 * cupat_image_alloc / cupat_image_free.
 *
 * What a read gives (channels of the cupat_image):
 *   gray, no transparency              -> 1 (gray)
 *   color or palette, no transparency  -> 3 (RGB)
 *   anything with alpha or a tRNS chunk -> 4 (RGBA); gray+alpha becomes RGBA
 *     with r = g = b = gray, so no information is lost and a 2-channel image
 *     never comes out of a read (the pattern kernels take 1, 3 or 4).
 * Samples deeper than 8 bits (16-bit PNG, PNM maxval up to 65535) are scaled
 * to 8 bits with rounding: round(v * 255 / maxval); bit depths 1, 2, 4 and
 * palettes are expanded. PBM (P1/P4) gives 0/255 gray. PAM (P7) is read by
 * its depth (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA), whatever its tuple type.
 * A sample above the maxval is refused (FORMAT), in plain and raw files.
 *
 * Where a read comes from: a path, an open stream, or memory. All three go
 * through one buffered input (struct input) that never seeks: the format is
 * told from bytes peeked in the buffer, which the decoder then reads again,
 * so pipes, FIFOs and terminals work like files.
 *
 * What a write makes, by the extension of the path (case-insensitive) or the
 * format given to cupat_image_write_stream:
 *   .png  1, 3 or 4 channels
 *   .pgm  1 channel (P5); others are refused: convert with cupat_rgb_to_gray
 *   .ppm  1 or 3 channels (P6; gray is replicated to RGB)
 *   .pnm  1 channel -> P5, 3 -> P6
 *   .pam  1, 3 or 4 channels (P7 with the matching tuple type)
 * PPM/PGM/PNM cannot hold alpha: a 4-channel image is refused with
 * CUPAT_ERROR_INVALID_VALUE rather than losing its alpha silently. A
 * cupat_image has 1, 3 or 4 channels, as cupat.h says: a read turns
 * gray+alpha into RGBA, and cupat_image_alloc and the writes refuse 2.
 *
 * Errors. Every failing read returns what it allocated: libpng's state is
 * destroyed after its longjmp lands, and the PNM code allocates nothing
 * before the header is checked (comments, however long, are skipped, never
 * stored) and frees its row and image buffers on every path. (Until issue
 * 18, PNM went through libnetpbm, whose header reader leaked what it had
 * allocated when its error handler longjmp'ed out: up to 300 KB a read.)
 *
 * Threads. No process-wide state: reads and writes run concurrently (libpng
 * keeps all of its state in the png_struct).
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, ftello, fseeko */

#include "internal.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef CUPAT_HAVE_PNG
#include <png.h>
#endif

/* Sanity caps on what a file may claim: sides as PNG allows (2^31 - 1) and
 * 64 GiB of decoded samples, far above any real image and below what a
 * corrupt header would make us allocate. */
#define MAX_SIDE 0x7FFFFFFFu
#define MAX_BYTES ((size_t)64 << 30)

/* ------------------------------------------------------------- input -- */
/* One read's source: an open stream (a file, pipe, FIFO, terminal: anything
 * fread reads) or bytes in memory, behind one small buffer. `left` counts
 * the bytes still to come where that is known (a regular file, memory), so
 * a header that claims more pixels than follow is refused before the
 * pixels are allocated; on a pipe it is -1 and a short stream shows up as
 * a truncated read instead. */
#define IN_BUF 16384
struct input {
    cupat_ctx *ctx;
    const char *fn;   /* the public function, for messages */
    const char *name; /* the path or what stands for it, for messages */
    FILE *f;          /* NULL: memory */
    const uint8_t *p; /* the unread bytes at hand: in buf, or the caller's memory */
    size_t n;         /* how many */
    long long left;   /* bytes not yet taken (those in p[] included); -1: unknown */
    int err;          /* errno of a failed read; 0: none, or just the end */
    uint8_t buf[IN_BUF];
};

static void in_file(struct input *in, FILE *f)
{
    struct stat st;
    off_t pos = -1;
    in->f = f;
    in->p = in->buf;
    in->n = 0;
    in->left = -1;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (pos = ftello(f)) >= 0)
        in->left = st.st_size > pos ? (long long)(st.st_size - pos) : 0;
}

static void in_memory(struct input *in, const void *data, size_t size)
{
    in->f = NULL;
    in->p = data;
    in->n = size;
    in->left = (long long)size;
}

static void in_took(struct input *in, size_t k)
{
    if (in->left >= 0) in->left = in->left > (long long)k ? in->left - (long long)k : 0;
}

/* Read more of the stream behind the `keep` bytes at hand; 0 at the end. */
static size_t in_fill(struct input *in, size_t keep)
{
    if (!in->f || in->err) return 0;
    if (keep && in->p != in->buf) memmove(in->buf, in->p, keep);
    in->p = in->buf;
    errno = 0;
    size_t got = fread(in->buf + keep, 1, IN_BUF - keep, in->f);
    if (got == 0 && ferror(in->f)) in->err = errno ? errno : EIO;
    in->n = keep + got;
    return got;
}

/* The first up to k (<= IN_BUF) bytes ahead, not taken; *got says how many. */
static const uint8_t *in_peek(struct input *in, size_t k, size_t *got)
{
    while (in->n < k && in_fill(in, in->n) > 0) {
    }
    *got = in->n < k ? in->n : k;
    return in->p;
}

/* The next byte, not taken; -1 at the end. */
static int in_peekc(struct input *in)
{
    if (in->n == 0 && in_fill(in, 0) == 0) return -1;
    return in->p[0];
}

/* The next byte, taken; -1 at the end. */
static int in_getc(struct input *in)
{
    if (in->n == 0 && in_fill(in, 0) == 0) return -1;
    in->n--;
    in_took(in, 1);
    return *in->p++;
}

/* Up to k bytes into dst; returns how many (fewer only at the end). */
static size_t in_take(struct input *in, void *dst, size_t k)
{
    uint8_t *d = dst;
    size_t done = 0;
    while (done < k) {
        if (in->n == 0) {
            if (!in->f || in->err) break;
            if (k - done >= IN_BUF) { /* large reads go straight to dst */
                errno = 0;
                size_t got = fread(d + done, 1, k - done, in->f);
                if (got < k - done && ferror(in->f)) in->err = errno ? errno : EIO;
                done += got;
                in_took(in, got);
                break;
            }
            if (in_fill(in, 0) == 0) break;
        }
        size_t c = in->n < k - done ? in->n : k - done;
        memcpy(d + done, in->p, c);
        in->p += c;
        in->n -= c;
        done += c;
        in_took(in, c);
    }
    return done;
}

/* A read that came up short: the stream failed (IO) or just ended (FORMAT). */
static cupat_status in_short(struct input *in, const char *kind, const char *where)
{
    if (in->err)
        return cupat__fail(in->ctx, CUPAT_ERROR_IO, "%s: reading '%s' failed: %s", in->fn,
                           in->name, strerror(in->err));
    return cupat__fail(in->ctx, CUPAT_ERROR_FORMAT,
                       "%s: '%s': malformed %s: the data ends %s (truncated?)", in->fn, in->name,
                       kind, where);
}

/* Shape checks shared by both readers: FORMAT for sizes no real file has. */
static cupat_status check_shape(struct input *in, size_t w, size_t h, int channels,
                                size_t *bytes)
{
    *bytes = 0; /* set on every path (GCC without libpng saw one that was not) */
    if (w == 0 || h == 0)
        return cupat__fail(in->ctx, CUPAT_ERROR_FORMAT, "%s: '%s': image is %zux%zu (empty)",
                           in->fn, in->name, w, h);
    size_t wh, n;
    if (w > MAX_SIDE || h > MAX_SIDE || __builtin_mul_overflow(w, h, &wh) ||
        __builtin_mul_overflow(wh, (size_t)channels, &n) || n > MAX_BYTES)
        return cupat__fail(in->ctx, CUPAT_ERROR_FORMAT,
                           "%s: '%s': header claims %zux%zu x %d channels, beyond cupat's "
                           "limits (sides < 2^31, 64 GiB of samples)",
                           in->fn, in->name, w, h, channels);
    *bytes = n;
    return CUPAT_SUCCESS;
}

/* Size of an open regular file, or -1 for pipes and the like. */
static long long file_size(FILE *f)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return (long long)st.st_size;
}

/* ------------------------------------------------------------------ PNG -- */
#ifdef CUPAT_HAVE_PNG
/* State of one libpng call; lives in the caller's frame so that it survives
 * the longjmp out of the function that called setjmp. */
struct png_job {
    struct input *in; /* reads */
    cupat_ctx *ctx;   /* writes: */
    const char *fn, *name;
    FILE *f;
    png_structp png;
    png_infop info;
    uint8_t *data;
    png_bytep *rows;
    size_t bytes; /* of the decoded image; here, not a local, so longjmp cannot clobber it */
    char msg[200];
    char warning[120]; /* the last one: libpng often explains its error in a warning */
};

static void png_on_error(png_structp png, png_const_charp msg)
{
    struct png_job *j = png_get_error_ptr(png);
    if (j->warning[0])
        snprintf(j->msg, sizeof j->msg, "%s (%s)", msg, j->warning);
    else
        snprintf(j->msg, sizeof j->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    /* Not failures (bad ancillary chunks, odd profiles): kept for context. */
    struct png_job *j = png_get_error_ptr(png);
    snprintf(j->warning, sizeof j->warning, "%s", msg);
}

/* libpng's own reader says only "Read Error"; tell a short file from a
 * failing device (png_decode looks at in->err). */
static void png_on_read(png_structp png, png_bytep dst, size_t n)
{
    struct png_job *j = png_get_io_ptr(png);
    if (in_take(j->in, dst, n) == n) return;
    png_error(png, j->in->err ? strerror(j->in->err) : "unexpected end of file (truncated?)");
}

static cupat_status png_decode(struct png_job *j, cupat_image *img)
{
    struct input *in = j->in;
    if (setjmp(png_jmpbuf(j->png))) {
        if (in->err)
            return cupat__fail(in->ctx, CUPAT_ERROR_IO, "%s: reading '%s' failed: %s", in->fn,
                               in->name, strerror(in->err));
        return cupat__fail(in->ctx, CUPAT_ERROR_FORMAT, "%s: '%s': malformed PNG: %s", in->fn,
                           in->name, j->msg);
    }
    png_structp png = j->png;
    png_infop info = j->info;
    png_set_read_fn(png, j, png_on_read);
    /* libpng's default cap is 10^6 per side; ours is check_shape's. */
    png_set_user_limits(png, MAX_SIDE, MAX_SIDE);
    /* The pixels need IHDR, PLTE, tRNS, IDAT and IEND only: libpng skips every
     * other chunk unread (piecewise, nothing allocated), where it would
     * otherwise allocate what a chunk's length field claims before reading it
     * (an sPLT declaring 1.9 GB in a 160-byte file, found by the fuzzer; this
     * libpng build does not apply its 8 MB chunk cap to it). The cap is set
     * again for whatever chunk still gets buffered. */
#ifdef PNG_HANDLE_AS_UNKNOWN_SUPPORTED
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
#endif
    png_set_chunk_malloc_max(png, 8u << 20);
    /* The deflate stream expands at most 1032:1: a file too small to hold
     * the pixels it claims is truncated; say so before allocating them. */
    long long fsize = in->left;
    png_read_info(png, info);

    png_uint_32 w, h;
    int depth, ctype, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);

    /* What the transforms below will give, so the caps apply before any
     * allocation. */
    int gray = !(ctype & PNG_COLOR_MASK_COLOR);
    int alpha = (ctype & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    int channels = alpha ? 4 : gray ? 1 : 3;
    CUPAT_TRY(check_shape(in, w, h, channels, &j->bytes));

    int file_ch = png_get_channels(png, info);
    double packed = (double)h * ((double)w * depth * file_ch / 8.0);
    if (fsize >= 0 && packed > 1032.0 * (double)fsize + 65536.0)
        return cupat__fail(in->ctx, CUPAT_ERROR_FORMAT,
                           "%s: '%s': malformed PNG: header claims %lux%lu pixels, but "
                           "the file's %lld bytes cannot hold them (truncated?)",
                           in->fn, in->name, (unsigned long)w, (unsigned long)h, fsize);

    png_set_expand(png); /* palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha */
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
    png_set_scale_16(png); /* rounds: round(v * 255 / 65535) */
#else
    png_set_strip_16(png);
#endif
    if (gray && alpha) png_set_gray_to_rgb(png); /* gray+alpha -> RGBA */
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_bit_depth(png, info) != 8 || png_get_channels(png, info) != channels ||
        png_get_rowbytes(png, info) != (size_t)w * channels)
        return cupat__fail(in->ctx, CUPAT_ERROR_INTERNAL,
                           "%s: '%s': libpng gave %d channels of %d bits, expected %d of 8",
                           in->fn, in->name, png_get_channels(png, info),
                           png_get_bit_depth(png, info), channels);

    j->data = malloc(j->bytes);
    j->rows = malloc(sizeof *j->rows * h);
    if (!j->data || !j->rows)
        return cupat__fail(in->ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: '%s': %zu bytes of host memory unavailable", in->fn, in->name,
                           j->bytes);
    for (png_uint_32 y = 0; y < h; y++) j->rows[y] = j->data + (size_t)y * w * channels;
    png_read_image(png, j->rows);
    png_read_end(png, NULL); /* CRCs of the chunks after the pixels too */

    img->width = w;
    img->height = h;
    img->channels = channels;
    img->data = j->data;
    j->data = NULL;
    return CUPAT_SUCCESS;
}

static cupat_status png_read(struct input *in, cupat_image *img)
{
    struct png_job j = {.in = in};
    j.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &j, png_on_error, png_on_warning);
    if (j.png) j.info = png_create_info_struct(j.png);
    cupat_status s = j.info ? png_decode(&j, img)
                            : cupat__fail(in->ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                                          "%s: '%s': cannot create libpng state", in->fn,
                                          in->name);
    png_destroy_read_struct(&j.png, &j.info, NULL); /* NULLs are fine */
    free(j.rows);
    free(j.data);
    return s;
}

/* As png_on_read: the errno of a failed write in the message. */
static void png_on_write(png_structp png, png_bytep src, size_t n)
{
    struct png_job *j = png_get_io_ptr(png);
    if (fwrite(src, 1, n, j->f) != n) png_error(png, strerror(errno ? errno : EIO));
}

static void png_on_flush(png_structp png)
{
    (void)png; /* write_to flushes and checks once at the end */
}

static cupat_status png_encode(struct png_job *j, const cupat_image *img)
{
    if (setjmp(png_jmpbuf(j->png)))
        return cupat__fail(j->ctx, CUPAT_ERROR_IO, "%s: writing '%s' failed: %s", j->fn,
                           j->name, j->msg);
    static const int ctypes[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                  PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_write_fn(j->png, j, png_on_write, png_on_flush);
    png_set_user_limits(j->png, MAX_SIDE, MAX_SIDE);
    png_set_IHDR(j->png, j->info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 ctypes[img->channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(j->png, j->info);
    size_t row = img->width * (size_t)img->channels;
    for (size_t y = 0; y < img->height; y++) png_write_row(j->png, img->data + y * row);
    png_write_end(j->png, NULL);
    return CUPAT_SUCCESS;
}

static cupat_status png_write(cupat_ctx *ctx, const char *fn, const char *name, FILE *f,
                              const cupat_image *img)
{
    struct png_job j = {.ctx = ctx, .fn = fn, .name = name, .f = f};
    j.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &j, png_on_error, png_on_warning);
    if (j.png) j.info = png_create_info_struct(j.png);
    cupat_status s = j.info ? png_encode(&j, img)
                            : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                                          "%s: '%s': cannot create libpng state", fn, name);
    png_destroy_write_struct(&j.png, &j.info);
    return s;
}
#endif /* CUPAT_HAVE_PNG */

/* ------------------------------------------------------------------ PNM -- */
/* PBM, PGM, PPM (P1..P6) and PAM (P7), after netpbm's format pages: a
 * header of decimal numbers (P1..P6: width, height, then maxval except for
 * PBM, separated by blanks and '#' comments, the last followed by exactly
 * one blank) or of keyword lines (P7: WIDTH, HEIGHT, DEPTH, MAXVAL,
 * TUPLTYPE, ENDHDR; '#' lines and blank lines allowed), then the raster:
 * ASCII numbers (P2, P3), '0'/'1' characters (P1), packed bits (P4), or
 * bytes, big-endian pairs where maxval > 255 (P5, P6, P7). */
struct pnm {
    struct input *in;
    const char *kind; /* "PBM", "PGM", "PPM", "PAM", for messages */
    int magic;        /* '1'..'7' */
    unsigned long long width, height, depth, maxval;
    char tupltype[40]; /* for messages only */
    uint8_t *row, *data;
};

static int pnm_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static cupat_status pnm_fail(struct pnm *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static cupat_status pnm_fail(struct pnm *p, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cupat__fail(p->in->ctx, CUPAT_ERROR_FORMAT, "%s: '%s': malformed %s: %s", p->in->fn,
                       p->in->name, p->kind, what);
}

/* A byte for a message: itself if printable, else its code. */
static const char *pnm_byte(int c, char buf[8])
{
    if (c >= 0x21 && c < 0x7f) snprintf(buf, 8, "'%c'", c);
    else snprintf(buf, 8, "0x%02x", (unsigned)c & 0xffu);
    return buf;
}

/* Skip a comment (the '#' already taken) to the end of its line; the line
 * end counts as a blank. Nothing is stored, however long it is. */
static void pnm_comment(struct input *in)
{
    int c;
    while ((c = in_getc(in)) >= 0 && c != '\n' && c != '\r') {
    }
}

/* Skip blanks and comments; the next byte, not taken, or -1 at the end. */
static int pnm_skip(struct input *in)
{
    for (;;) {
        int c = in_peekc(in);
        if (c < 0 || (c != '#' && !pnm_blank(c))) return c;
        in_getc(in);
        if (c == '#') pnm_comment(in);
    }
}

/* An unsigned decimal (the first digit at hand) of at most `max`; `what`
 * names it in messages. */
static cupat_status pnm_digits(struct pnm *p, const char *what, unsigned long long max,
                               unsigned long long *v)
{
    unsigned long long x = 0;
    int c;
    while ((c = in_peekc(p->in)) >= '0' && c <= '9') {
        in_getc(p->in);
        if (x > (max - (unsigned)(c - '0')) / 10)
            return pnm_fail(p, "%s is larger than %llu", what, max);
        x = 10 * x + (unsigned)(c - '0');
    }
    *v = x;
    return CUPAT_SUCCESS;
}

/* A number of a P1..P6 header, after blanks and comments. */
static cupat_status pnm_header_number(struct pnm *p, const char *what, unsigned long long max,
                                      unsigned long long *v)
{
    char b[8];
    int c = pnm_skip(p->in);
    if (c < 0) return in_short(p->in, p->kind, "in the header");
    if (c < '0' || c > '9')
        return pnm_fail(p, "the %s is not a number (found %s)", what, pnm_byte(c, b));
    return pnm_digits(p, what, max, v);
}

static cupat_status pnm_header_plain(struct pnm *p)
{
    char b[8];
    int bitmap = p->magic == '1' || p->magic == '4';
    p->depth = p->magic == '3' || p->magic == '6' ? 3 : 1;
    p->maxval = 1;
    CUPAT_TRY(pnm_header_number(p, "width", MAX_SIDE, &p->width));
    CUPAT_TRY(pnm_header_number(p, "height", MAX_SIDE, &p->height));
    if (!bitmap) CUPAT_TRY(pnm_header_number(p, "maxval", 65535, &p->maxval));
    /* Exactly one blank between the header and the raster. */
    int c = in_getc(p->in);
    if (c < 0) return in_short(p->in, p->kind, "before the pixel data");
    if (c == '#') pnm_comment(p->in); /* ends at a line end: the blank */
    else if (!pnm_blank(c))
        return pnm_fail(p, "%s after the %s (a blank must end the header)", pnm_byte(c, b),
                        bitmap ? "height" : "maxval");
    return CUPAT_SUCCESS;
}

/* Skip spaces and tabs within a PAM header line. */
static int pam_inline_blanks(struct input *in)
{
    int c;
    while ((c = in_peekc(in)) == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r')
        in_getc(in);
    return c;
}

static cupat_status pnm_header_pam(struct pnm *p)
{
    struct input *in = p->in;
    char b[8];
    int c = in_getc(in); /* the blank after "P7" */
    if (c < 0) return in_short(in, p->kind, "in the header");
    if (!pnm_blank(c)) return pnm_fail(p, "%s after P7", pnm_byte(c, b));
    enum { W, H, D, M, NKEYS };
    static const char *const keys[NKEYS] = {"WIDTH", "HEIGHT", "DEPTH", "MAXVAL"};
    static const unsigned long long max[NKEYS] = {MAX_SIDE, MAX_SIDE, 0xFFFFFFFFull, 65535};
    unsigned long long *val[NKEYS] = {&p->width, &p->height, &p->depth, &p->maxval};
    int seen[NKEYS] = {0};
    for (;;) {
        c = pnm_skip(in); /* blank lines, leading blanks, comment lines */
        if (c < 0) return in_short(in, p->kind, "before ENDHDR");
        char key[16];
        size_t k = 0;
        while ((c = in_peekc(in)) >= 0 && !pnm_blank(c)) {
            in_getc(in);
            if (k < sizeof key - 1) key[k++] = (char)(c >= 0x20 && c < 0x7f ? c : '?');
            else if (k == sizeof key - 1) key[k - 1] = '~', k++;
        }
        key[k < sizeof key ? k : sizeof key - 1] = '\0';
        if (strcmp(key, "ENDHDR") == 0) {
            while ((c = in_getc(in)) >= 0 && c != '\n') {
                if (!pnm_blank(c)) return pnm_fail(p, "%s after ENDHDR", pnm_byte(c, b));
            }
            if (c < 0) return in_short(in, p->kind, "before the pixel data");
            break;
        }
        if (strcmp(key, "TUPLTYPE") == 0) {
            /* Its words, joined by one blank; what is past tupltype[] is skipped. */
            size_t t = strlen(p->tupltype);
            pam_inline_blanks(in);
            if (t && t < sizeof p->tupltype - 1) p->tupltype[t++] = ' ';
            while ((c = in_getc(in)) >= 0 && c != '\n')
                if (t < sizeof p->tupltype - 1)
                    p->tupltype[t++] = (char)(c >= 0x20 && c < 0x7f ? c : '?');
            p->tupltype[t] = '\0';
            continue;
        }
        int i = 0;
        while (i < NKEYS && strcmp(key, keys[i]) != 0) i++;
        if (i == NKEYS) return pnm_fail(p, "unknown header line '%s'", key);
        c = pam_inline_blanks(in);
        if (c < 0) return in_short(in, p->kind, "in the header");
        if (c < '0' || c > '9')
            return pnm_fail(p, "%s is not followed by a number (found %s)", keys[i],
                            pnm_byte(c, b));
        CUPAT_TRY(pnm_digits(p, keys[i], max[i], val[i]));
        c = pam_inline_blanks(in);
        if (c >= 0 && c != '\n')
            return pnm_fail(p, "%s after the %s value", pnm_byte(c, b), keys[i]);
        seen[i] = 1;
    }
    for (int i = 0; i < NKEYS; i++)
        if (!seen[i]) return pnm_fail(p, "the header has no %s line", keys[i]);
    if (p->depth == 0) return pnm_fail(p, "DEPTH 0");
    return CUPAT_SUCCESS;
}

/* round(v * 255 / maxval), the same rounding libpng's png_set_scale_16 does. */
static uint8_t scale_sample(unsigned v, unsigned maxval)
{
    return (uint8_t)((v * 255u + maxval / 2u) / maxval);
}

/* The next sample of a plain (ASCII) raster. */
static cupat_status pnm_plain_sample(struct pnm *p, size_t i, size_t total, unsigned *v)
{
    char b[8], where[96];
    int c = pnm_skip(p->in);
    if (c < 0) {
        snprintf(where, sizeof where, "after %zu of %zu samples", i, total);
        return in_short(p->in, p->kind, where);
    }
    if (p->magic == '1') { /* one character a pixel, blanks optional */
        if (c != '0' && c != '1')
            return pnm_fail(p, "%s in the bitmap (only 0 and 1)", pnm_byte(c, b));
        in_getc(p->in);
        *v = c == '0'; /* 1 is black */
        return CUPAT_SUCCESS;
    }
    if (c < '0' || c > '9')
        return pnm_fail(p, "sample %zu is not a number (found %s)", i, pnm_byte(c, b));
    unsigned long long x = 0;
    cupat_status s = pnm_digits(p, "a sample", 0xFFFFFFFFull, &x);
    if (s) return s;
    if (x > p->maxval)
        return pnm_fail(p, "sample %zu is %llu, above the maxval %llu", i, x, p->maxval);
    *v = (unsigned)x;
    return CUPAT_SUCCESS;
}

/* Bytes the raster needs at least: raw formats exactly, plain ones a
 * character a sample plus separators (P1 needs none). */
static double pnm_min_raster(const struct pnm *p)
{
    double samples = (double)p->width * (double)p->height * (double)p->depth;
    switch (p->magic) {
    case '4': return (double)((p->width + 7) / 8) * (double)p->height;
    case '1': return samples;
    case '2':
    case '3': return 2.0 * samples - 1.0;
    default: return samples * (p->maxval > 255 ? 2.0 : 1.0);
    }
}

static cupat_status pnm_decode(struct pnm *p, cupat_image *img)
{
    struct input *in = p->in;
    if (p->magic == '7') CUPAT_TRY(pnm_header_pam(p));
    else CUPAT_TRY(pnm_header_plain(p));

    int channels;
    switch (p->depth) {
    case 1: channels = 1; break;
    case 2: channels = 4; break; /* gray+alpha -> RGBA, as for PNG */
    case 3: channels = 3; break;
    case 4: channels = 4; break;
    default:
        return cupat__fail(in->ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: '%s': PAM of depth %llu (tuple type '%s'); cupat reads depths "
                           "1 to 4",
                           in->fn, in->name, p->depth, p->tupltype);
    }
    if (p->maxval == 0) return pnm_fail(p, "maxval 0 (must be 1 to 65535)");
    size_t bytes;
    CUPAT_TRY(check_shape(in, (size_t)p->width, (size_t)p->height, channels, &bytes));
    if (in->left >= 0 && (double)in->left < pnm_min_raster(p))
        return pnm_fail(p, "header claims %llux%llu, but only %lld bytes of pixel data follow "
                        "(truncated?)",
                        p->width, p->height, in->left);

    size_t w = (size_t)p->width, h = (size_t)p->height, depth = (size_t)p->depth;
    unsigned maxval = (unsigned)p->maxval;
    if (!(p->data = malloc(bytes)))
        return cupat__fail(in->ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: '%s': %zu bytes of host memory unavailable", in->fn, in->name,
                           bytes);
    int plain = p->magic <= '3';
    size_t wide = maxval > 255 ? 2 : 1;
    size_t row_bytes = p->magic == '4' ? (w + 7) / 8 : w * depth * wide;
    int direct = !plain && p->magic != '4' && maxval == 255 && depth != 2;
    if (!plain && !direct && !(p->row = malloc(row_bytes)))
        return cupat__fail(in->ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: '%s': %zu bytes of host memory unavailable", in->fn, in->name,
                           row_bytes);
    size_t y;
    for (y = 0; y < h; y++) {
        uint8_t *o = p->data + y * w * (size_t)channels;
        if (direct) { /* the file's bytes are the image's */
            if (in_take(in, o, row_bytes) != row_bytes) goto short_raster;
            continue;
        }
        if (!plain && in_take(in, p->row, row_bytes) != row_bytes) goto short_raster;
        const uint8_t *r = p->row;
        for (size_t x = 0; x < w; x++, o += channels) {
            uint8_t s[4];
            for (size_t c = 0; c < depth; c++) {
                unsigned v = 0;
                if (plain) {
                    CUPAT_TRY(pnm_plain_sample(p, (y * w + x) * depth + c, w * h * depth, &v));
                } else if (p->magic == '4') {
                    v = !((r[x >> 3] >> (7 - (x & 7))) & 1); /* 1 is black */
                } else {
                    v = wide == 2 ? (unsigned)r[0] << 8 | r[1] : r[0];
                    r += wide;
                    if (v > maxval)
                        return pnm_fail(p, "a sample in row %zu is %u, above the maxval %u", y,
                                        v, maxval);
                }
                s[c] = scale_sample(v, maxval);
            }
            if (depth == 2) {
                o[0] = o[1] = o[2] = s[0];
                o[3] = s[1];
            } else {
                memcpy(o, s, depth);
            }
        }
    }
    img->width = w;
    img->height = h;
    img->channels = channels;
    img->data = p->data;
    p->data = NULL;
    return CUPAT_SUCCESS;

short_raster:;
    char where[96];
    snprintf(where, sizeof where, "in row %zu of %zu of the pixel data", y, h);
    return in_short(in, p->kind, where);
}

static cupat_status pnm_read(struct input *in, int magic, cupat_image *img)
{
    static const char *const kinds[] = {"PBM", "PGM", "PPM", "PBM", "PGM", "PPM", "PAM"};
    struct pnm p = {.in = in, .kind = kinds[magic - '1'], .magic = magic};
    in_getc(in); /* the 'P' and the digit, peeked before */
    in_getc(in);
    cupat_status s = pnm_decode(&p, img);
    free(p.row);
    free(p.data);
    return s;
}

/* P5, P6 or P7 with maxval 255; `expand` writes a gray image as RGB. */
static cupat_status pnm_write(cupat_ctx *ctx, const char *fn, const char *name, FILE *f,
                              const cupat_image *img, int magic)
{
    static const char *const types[5] = {"", "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    size_t w = img->width, ch = (size_t)img->channels;
    int expand = magic == '6' && ch == 1;
    int ok;
    errno = 0;
    if (magic == '7')
        ok = fprintf(f, "P7\nWIDTH %zu\nHEIGHT %zu\nDEPTH %zu\nMAXVAL 255\nTUPLTYPE %s\nENDHDR\n",
                     w, img->height, ch, types[ch]) > 0;
    else
        ok = fprintf(f, "P%c\n%zu %zu\n255\n", magic, w, img->height) > 0;
    uint8_t *rgb = expand && ok ? malloc(w * 3) : NULL;
    if (expand && ok && !rgb) {
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: '%s': %zu bytes of host memory unavailable", fn, name, w * 3);
    }
    for (size_t y = 0; ok && y < img->height; y++) {
        const uint8_t *in = img->data + y * w * ch;
        if (expand) {
            for (size_t x = 0; x < w; x++) rgb[3 * x] = rgb[3 * x + 1] = rgb[3 * x + 2] = in[x];
            ok = fwrite(rgb, 1, 3 * w, f) == 3 * w;
        } else {
            ok = fwrite(in, 1, w * ch, f) == w * ch;
        }
    }
    int e = errno;
    free(rgb);
    if (!ok)
        return cupat__fail(ctx, CUPAT_ERROR_IO, "%s: writing '%s' failed: %s", fn, name,
                           strerror(e ? e : EIO));
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------------ public -- */

/* Tell the format from the first bytes (peeked, not taken) and decode. */
static cupat_status read_input(struct input *in, cupat_image *img)
{
    size_t n;
    const uint8_t *magic = in_peek(in, 8, &n);
    if (n == 0 && in->err)
        return cupat__fail(in->ctx, CUPAT_ERROR_IO, "%s: cannot read '%s': %s", in->fn, in->name,
                           strerror(in->err));
    if (n == 0) return cupat__fail(in->ctx, CUPAT_ERROR_FORMAT, "%s: '%s' is empty", in->fn, in->name);
    if (n == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0) {
#ifdef CUPAT_HAVE_PNG
        return png_read(in, img);
#else
        return cupat__fail(in->ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: '%s' is a PNG, and this cupat was built without libpng "
                           "(Debian: libpng-dev)",
                           in->fn, in->name);
#endif
    }
    if (n >= 2 && magic[0] == 'P' && magic[1] >= '1' && magic[1] <= '7')
        return pnm_read(in, magic[1], img);
    /* "PNG" after the first byte, the rest of the 8 bytes wrong: a PNG whose
     * signature was damaged (a text-mode transfer turns its \r\n into \n) */
    if (n >= 4 && memcmp(magic + 1, "PNG", 3) == 0)
        return cupat__fail(in->ctx, CUPAT_ERROR_FORMAT,
                           "%s: '%s': corrupt PNG signature: the first bytes are %02x %02x "
                           "%02x %02x %02x %02x %02x %02x, a PNG starts 89 50 4e 47 0d 0a 1a "
                           "0a (a text-mode transfer changes the 0d 0a)",
                           in->fn, in->name, magic[0], magic[1], magic[2], magic[3],
                           n > 4 ? magic[4] : 0, n > 5 ? magic[5] : 0, n > 6 ? magic[6] : 0,
                           n > 7 ? magic[7] : 0);
    return cupat__fail(in->ctx, CUPAT_ERROR_FORMAT,
                       "%s: '%s' is neither PNG nor PBM/PGM/PPM/PAM (first bytes %02x %02x "
                       "%02x %02x)",
                       in->fn, in->name, magic[0], n > 1 ? magic[1] : 0, n > 2 ? magic[2] : 0,
                       n > 3 ? magic[3] : 0);
}

/* Arguments every read checks; clears *img. */
static cupat_status read_args(cupat_ctx *ctx, const char *fn, cupat_image *img)
{
    if (ctx) CUPAT_TRY(cupat__begin(ctx, fn));
    if (!img) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: img is NULL", fn);
    memset(img, 0, sizeof *img);
    return CUPAT_SUCCESS;
}

static cupat_status read_done(cupat_status s, cupat_image *img)
{
    if (s != CUPAT_SUCCESS) cupat_image_free(img);
    return s;
}

cupat_status cupat_image_read(cupat_ctx *ctx, const char *path, cupat_image *img)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_image_read";
    CUPAT_TRY(read_args(ctx, fn, img));
    if (!path) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: path is NULL", fn);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cupat__fail(ctx, CUPAT_ERROR_IO, "%s: cannot open '%s': %s", fn, path,
                           strerror(errno));
    struct input in = {.ctx = ctx, .fn = fn, .name = path};
    in_file(&in, f);
    cupat_status s = read_input(&in, img);
    fclose(f);
    return read_done(s, img);
}

cupat_status cupat_image_read_stream(cupat_ctx *ctx, FILE *f, const char *name,
                                     cupat_image *img)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_image_read_stream";
    CUPAT_TRY(read_args(ctx, fn, img));
    if (!f) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: f is NULL", fn);
    struct input in = {.ctx = ctx, .fn = fn, .name = name ? name : "(stream)"};
    in_file(&in, f);
    cupat_status s = read_input(&in, img);
    /* Give back what the buffer read past the image, where the stream seeks
     * (a regular file); a pipe's extra bytes are gone. */
    if (in.n && in.left >= 0) fseeko(f, -(off_t)in.n, SEEK_CUR);
    return read_done(s, img);
}

cupat_status cupat_image_read_memory(cupat_ctx *ctx, const void *data, size_t size,
                                     cupat_image *img)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_image_read_memory";
    CUPAT_TRY(read_args(ctx, fn, img));
    if (!data && size)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: data is NULL (size %zu)", fn,
                           size);
    struct input in = {.ctx = ctx, .fn = fn, .name = "(memory)"};
    in_memory(&in, data ? data : "", size);
    return read_done(read_input(&in, img), img);
}

enum out_kind { OUT_NONE, OUT_PNG, OUT_PGM, OUT_PPM, OUT_PNM, OUT_PAM };

/* The format named by a three-letter extension, any case; OUT_NONE else. */
static enum out_kind out_kind_of_ext(const char *ext)
{
    if (strlen(ext) != 3) return OUT_NONE;
    char e[4];
    for (int i = 0; i < 3; i++) {
        char c = ext[i];
        e[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    e[3] = '\0';
    static const struct { const char *ext; enum out_kind kind; } kinds[] = {
        {"png", OUT_PNG}, {"pgm", OUT_PGM}, {"ppm", OUT_PPM}, {"pnm", OUT_PNM}, {"pam", OUT_PAM}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(e, kinds[i].ext) == 0) return kinds[i].kind;
    return OUT_NONE;
}

static enum out_kind out_kind_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return OUT_NONE;
    return out_kind_of_ext(dot + 1);
}

/* A cupat_image's channel count: 1 (gray), 3 (RGB) or 4 (RGBA); `what`
 * names the argument. */
static cupat_status check_channels(cupat_ctx *ctx, const char *fn, const char *what, int ch)
{
    if (ch != 1 && ch != 3 && ch != 4)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %d (must be 1 gray, 3 RGB or 4 RGBA%s)", fn, what, ch,
                           ch == 2 ? "; gray+alpha is held as RGBA" : "");
    return CUPAT_SUCCESS;
}

/* The image's own checks, common to both writes. */
static cupat_status write_image_args(cupat_ctx *ctx, const char *fn, const cupat_image *img)
{
    CUPAT_TRY(check_channels(ctx, fn, "img->channels", img->channels));
    if (img->width == 0 || img->height == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: image is %zux%zu; image files cannot be empty", fn, img->width,
                           img->height);
    if (img->width > MAX_SIDE || img->height > MAX_SIDE)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           "%s: image is %zux%zu; PNG and PNM sides stop at 2^31 - 1", fn,
                           img->width, img->height);
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "image bytes", img->width, img->height,
                              (size_t)img->channels, &bytes));
    (void)bytes; /* only the overflow check matters here */
    if (!img->data) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: img->data is NULL", fn);
    return CUPAT_SUCCESS;
}

/* Whether the format holds the image's channels and this build writes it. */
static cupat_status write_kind_args(cupat_ctx *ctx, const char *fn, const char *name,
                                    enum out_kind kind, int ch)
{
    if (kind == OUT_PGM && ch != 1)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: '%s': a PGM holds 1 channel, the image has %d (convert with "
                           "cupat_rgb_to_gray, or write .ppm / .png)",
                           fn, name, ch);
    if ((kind == OUT_PPM || kind == OUT_PNM) && ch != 1 && ch != 3)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: '%s': PPM/PNM cannot hold the alpha channel of a %d-channel "
                           "image (write .png or .pam to keep it)",
                           fn, name, ch);
#ifndef CUPAT_HAVE_PNG
    if (kind == OUT_PNG)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: '%s': this cupat was built without libpng (Debian: "
                           "libpng-dev)",
                           fn, name);
#endif
    return CUPAT_SUCCESS;
}

/* Encode into f and flush it: buffered data reaches the file only then, so
 * a full disk shows up here. */
static cupat_status write_to(cupat_ctx *ctx, const char *fn, const char *name, FILE *f,
                             enum out_kind kind, const cupat_image *img)
{
    cupat_status s;
    int ch = img->channels;
    if (kind == OUT_PNG) {
#ifdef CUPAT_HAVE_PNG
        s = png_write(ctx, fn, name, f, img);
#else
        s = CUPAT_ERROR_INTERNAL; /* refused by write_kind_args */
#endif
    } else {
        int magic = kind == OUT_PAM                                 ? '7'
                    : kind == OUT_PPM || (kind == OUT_PNM && ch == 3) ? '6'
                                                                      : '5';
        s = pnm_write(ctx, fn, name, f, img, magic);
    }
    if (s == CUPAT_SUCCESS && (fflush(f) != 0 || ferror(f)))
        s = cupat__fail(ctx, CUPAT_ERROR_IO, "%s: writing '%s' failed: %s", fn, name,
                        strerror(errno));
    return s;
}

cupat_status cupat_image_write(cupat_ctx *ctx, const char *path, const cupat_image *img)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_image_write";
    if (ctx) CUPAT_TRY(cupat__begin(ctx, fn));
    if (!path) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: path is NULL", fn);
    if (!img) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: img is NULL", fn);
    CUPAT_TRY(write_image_args(ctx, fn, img));
    enum out_kind kind = out_kind_of(path);
    if (kind == OUT_NONE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: cannot tell the format of '%s' from its extension (use .png, "
                           ".ppm, .pgm, .pnm or .pam)",
                           fn, path);
    CUPAT_TRY(write_kind_args(ctx, fn, path, kind, img->channels));

    FILE *f = fopen(path, "wb");
    if (!f)
        return cupat__fail(ctx, CUPAT_ERROR_IO, "%s: cannot create '%s': %s", fn, path,
                           strerror(errno));
    cupat_status s = write_to(ctx, fn, path, f, kind, img);
    int regular = file_size(f) >= 0;
    if (fclose(f) != 0 && s == CUPAT_SUCCESS)
        s = cupat__fail(ctx, CUPAT_ERROR_IO, "%s: closing '%s' failed: %s", fn, path,
                        strerror(errno));
    /* Leave no half-written image behind (but never unlink a device or fifo). */
    if (s != CUPAT_SUCCESS && regular) remove(path);
    return s;
}

cupat_status cupat_image_write_stream(cupat_ctx *ctx, FILE *f, const char *format,
                                      const cupat_image *img)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_image_write_stream";
    if (ctx) CUPAT_TRY(cupat__begin(ctx, fn));
    if (!f) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: f is NULL", fn);
    if (!format) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: format is NULL", fn);
    if (!img) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: img is NULL", fn);
    CUPAT_TRY(write_image_args(ctx, fn, img));
    enum out_kind kind = out_kind_of_ext(format[0] == '.' ? format + 1 : format);
    if (kind == OUT_NONE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: format '%s' (use png, ppm, pgm, pnm or pam)", fn, format);
    CUPAT_TRY(write_kind_args(ctx, fn, "(stream)", kind, img->channels));
    return write_to(ctx, fn, "(stream)", f, kind, img);
}

cupat_status cupat_image_alloc(cupat_ctx *ctx, cupat_image *img, size_t width,
                               size_t height, int channels)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_image_alloc";
    if (ctx) CUPAT_TRY(cupat__begin(ctx, fn));
    if (!img) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: img is NULL", fn);
    memset(img, 0, sizeof *img);
    CUPAT_TRY(check_channels(ctx, fn, "channels", channels));
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "width x height x channels", width, height,
                              (size_t)channels, &bytes));
    if (bytes > 0 && !(img->data = calloc(bytes, 1)))
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: %zux%zu x %d: %zu bytes of host memory unavailable", fn,
                           width, height, channels, bytes);
    img->width = width;
    img->height = height;
    img->channels = channels;
    return CUPAT_SUCCESS;
}

void cupat_image_free(cupat_image *img)
{
    if (!img) return;
    free(img->data);
    memset(img, 0, sizeof *img);
}
