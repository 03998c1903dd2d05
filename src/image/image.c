/* image.c — image files in and out: PNG through libpng, PBM/PGM/PPM/PAM
 * through libnetpbm, both optional at build time (CUPAT_HAVE_PNG,
 * CUPAT_HAVE_NETPBM); cupat_image_alloc / cupat_image_free.
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
 *
 * What a write makes, by the extension of the path (case-insensitive):
 *   .png  any of 1..4 channels (2 = gray+alpha)
 *   .pgm  1 channel (P5); others are refused: convert with cupat_rgb_to_gray
 *   .ppm  1 or 3 channels (P6; gray is replicated to RGB)
 *   .pnm  1 channel -> P5, 3 -> P6
 *   .pam  any of 1..4 channels (P7 with the matching tuple type)
 * PPM/PGM/PNM cannot hold alpha: a 2- or 4-channel image is refused with
 * CUPAT_ERROR_INVALID_VALUE rather than losing its alpha silently.
 *
 * Threads. libpng keeps all of its state in the png_struct, so PNG reads and
 * writes run concurrently. libnetpbm keeps its error handling (the longjmp
 * target, the message functions) and pm_plain_output in process-wide
 * variables: every libnetpbm call of cupat holds netpbm_lock, which
 * serializes cupat's own netpbm use. It cannot protect an application that
 * calls libnetpbm itself from another thread at the same time; and since
 * libnetpbm offers no way to read back the message functions, cupat leaves
 * them at libnetpbm's defaults (NULL) after each call.
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, ftello */

#include "internal.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef CUPAT_HAVE_PNG
#include <png.h>
#endif
#ifdef CUPAT_HAVE_NETPBM
#include <netpbm/pam.h>
#include <pthread.h>
#endif

/* Sanity caps on what a file may claim: sides as PNG allows (2^31 - 1) and
 * 64 GiB of decoded samples, far above any real image and below what a
 * corrupt header would make us allocate. */
#define MAX_SIDE 0x7FFFFFFFu
#define MAX_BYTES ((size_t)64 << 30)

#define RD "cupat_image_read"
#define WR "cupat_image_write"

#if defined(CUPAT_HAVE_PNG) || defined(CUPAT_HAVE_NETPBM)
/* Shape checks shared by both readers: FORMAT for sizes no real file has. */
static cupat_status check_shape(cupat_ctx *ctx, const char *path, size_t w, size_t h,
                                int channels, size_t *bytes)
{
    if (w == 0 || h == 0)
        return cupat__fail(ctx, CUPAT_ERROR_FORMAT, RD ": '%s': image is %zux%zu (empty)",
                           path, w, h);
    size_t wh, n;
    if (w > MAX_SIDE || h > MAX_SIDE || __builtin_mul_overflow(w, h, &wh) ||
        __builtin_mul_overflow(wh, (size_t)channels, &n) || n > MAX_BYTES)
        return cupat__fail(ctx, CUPAT_ERROR_FORMAT,
                           RD ": '%s': header claims %zux%zu x %d channels, beyond cupat's "
                           "limits (sides < 2^31, 64 GiB of samples)",
                           path, w, h, channels);
    *bytes = n;
    return CUPAT_SUCCESS;
}
#endif

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
    cupat_ctx *ctx;
    const char *path;
    FILE *f;
    png_structp png;
    png_infop info;
    uint8_t *data;
    png_bytep *rows;
    size_t bytes;   /* of the decoded image; here, not a local, so longjmp cannot clobber it */
    int read_errno; /* a read failed with this errno (an I/O error, not a format one) */
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
 * failing device. */
static void png_on_read(png_structp png, png_bytep dst, size_t n)
{
    struct png_job *j = png_get_io_ptr(png);
    if (fread(dst, 1, n, j->f) == n) return;
    if (ferror(j->f)) {
        j->read_errno = errno ? errno : EIO;
        png_error(png, strerror(j->read_errno));
    }
    png_error(png, "unexpected end of file (truncated?)");
}

static cupat_status png_decode(struct png_job *j, cupat_image *img)
{
    if (setjmp(png_jmpbuf(j->png))) {
        if (j->read_errno)
            return cupat__fail(j->ctx, CUPAT_ERROR_IO, RD ": reading '%s' failed: %s", j->path,
                               strerror(j->read_errno));
        return cupat__fail(j->ctx, CUPAT_ERROR_FORMAT, RD ": '%s': malformed PNG: %s",
                           j->path, j->msg);
    }
    png_structp png = j->png;
    png_infop info = j->info;
    png_set_read_fn(png, j, png_on_read);
    /* libpng's default cap is 10^6 per side; ours is check_shape's. */
    png_set_user_limits(png, MAX_SIDE, MAX_SIDE);
    png_read_info(png, info);

    png_uint_32 w, h;
    int depth, ctype, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);

    /* What the transforms below will give, so the caps apply before any
     * allocation. */
    int gray = !(ctype & PNG_COLOR_MASK_COLOR);
    int alpha = (ctype & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    int channels = alpha ? 4 : gray ? 1 : 3;
    CUPAT_TRY(check_shape(j->ctx, j->path, w, h, channels, &j->bytes));

    /* The deflate stream expands at most 1032:1: a file too small to hold
     * the pixels it claims is truncated; say so before allocating them. */
    long long fsize = file_size(j->f);
    int file_ch = png_get_channels(png, info);
    double packed = (double)h * ((double)w * depth * file_ch / 8.0);
    if (fsize >= 0 && packed > 1032.0 * (double)fsize + 65536.0)
        return cupat__fail(j->ctx, CUPAT_ERROR_FORMAT,
                           RD ": '%s': malformed PNG: header claims %lux%lu pixels, but "
                           "the file's %lld bytes cannot hold them (truncated?)",
                           j->path, (unsigned long)w, (unsigned long)h, fsize);

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
        return cupat__fail(j->ctx, CUPAT_ERROR_INTERNAL,
                           RD ": '%s': libpng gave %d channels of %d bits, expected %d of 8",
                           j->path, png_get_channels(png, info), png_get_bit_depth(png, info),
                           channels);

    j->data = malloc(j->bytes);
    j->rows = malloc(sizeof *j->rows * h);
    if (!j->data || !j->rows)
        return cupat__fail(j->ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           RD ": '%s': %zu bytes of host memory unavailable", j->path, j->bytes);
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

static cupat_status png_read_file(cupat_ctx *ctx, const char *path, FILE *f, cupat_image *img)
{
    struct png_job j = {.ctx = ctx, .path = path, .f = f};
    j.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &j, png_on_error, png_on_warning);
    if (j.png) j.info = png_create_info_struct(j.png);
    cupat_status s = j.info ? png_decode(&j, img)
                            : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                                          RD ": '%s': cannot create libpng state", path);
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
    (void)png; /* cupat_image_write flushes and checks once at the end */
}

static cupat_status png_encode(struct png_job *j, const cupat_image *img)
{
    if (setjmp(png_jmpbuf(j->png)))
        return cupat__fail(j->ctx, CUPAT_ERROR_IO, WR ": writing '%s' failed: %s", j->path,
                           j->msg);
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

static cupat_status png_write_file(cupat_ctx *ctx, const char *path, FILE *f,
                                   const cupat_image *img)
{
    struct png_job j = {.ctx = ctx, .path = path, .f = f};
    j.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &j, png_on_error, png_on_warning);
    if (j.png) j.info = png_create_info_struct(j.png);
    cupat_status s = j.info ? png_encode(&j, img)
                            : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                                          WR ": '%s': cannot create libpng state", path);
    png_destroy_write_struct(&j.png, &j.info);
    return s;
}
#endif /* CUPAT_HAVE_PNG */

/* ------------------------------------------------------------- netpbm -- */
#ifdef CUPAT_HAVE_NETPBM
static pthread_mutex_t netpbm_lock = PTHREAD_MUTEX_INITIALIZER;
static char netpbm_msg[200]; /* guarded by netpbm_lock */

/* round(v * 255 / maxval), the same rounding libpng's png_set_scale_16 does. */
static uint8_t scale_sample(unsigned long v, unsigned long maxval)
{
    if (v > maxval) v = maxval; /* libnetpbm validates; stay safe if it did not */
    return (uint8_t)((v * 255u + maxval / 2u) / maxval);
}

static void netpbm_on_error(const char *msg)
{
    snprintf(netpbm_msg, sizeof netpbm_msg, "%s", msg);
    size_t n = strlen(netpbm_msg); /* libnetpbm's messages may end in blanks */
    while (n && (netpbm_msg[n - 1] == '\n' || netpbm_msg[n - 1] == ' ')) netpbm_msg[--n] = '\0';
}

static void netpbm_on_message(const char *msg)
{
    (void)msg; /* informational chatter: the library never prints */
}

struct pnm_job {
    cupat_ctx *ctx;
    const char *path;
    const char *kind; /* "PPM", ... from the magic number, for messages */
    FILE *f;
    jmp_buf jb; /* where pm_error() lands instead of exit() */
    struct pam pam;
    tuple *row;
    uint8_t *data;
    size_t bytes; /* of the decoded image (not a local: see png_job) */
};

/* Serialize on the lock and route libnetpbm's errors to j->jb. */
static jmp_buf *netpbm_enter(struct pnm_job *j, int *plain)
{
    jmp_buf *old;
    pthread_mutex_lock(&netpbm_lock);
    netpbm_msg[0] = '\0';
    pm_setusererrormsgfn(netpbm_on_error);
    pm_setusermessagefn(netpbm_on_message);
    *plain = pm_plain_output;
    pm_plain_output = 0;
    pm_setjmpbufsave(&j->jb, &old);
    return old;
}

static void netpbm_leave(jmp_buf *old, int plain)
{
    pm_setjmpbuf(old);
    pm_plain_output = plain;
    pm_setusererrormsgfn(NULL);
    pm_setusermessagefn(NULL);
    pthread_mutex_unlock(&netpbm_lock);
}

/* Minimum bytes of a raster: raw formats exactly, plain (ASCII) ones at
 * least a digit per sample plus a separator (P1 needs no separators). */
static double pnm_min_raster(const struct pam *p)
{
    double samples = (double)p->width * p->height * p->depth;
    switch (p->format) {
    case RPBM_FORMAT: return (double)((p->width + 7) / 8) * p->height;
    case PBM_FORMAT: return samples;
    case PGM_FORMAT:
    case PPM_FORMAT: return 2.0 * samples - 1.0;
    default: return samples * p->bytes_per_sample;
    }
}

static cupat_status pnm_decode(struct pnm_job *j, cupat_image *img)
{
    if (setjmp(j->jb))
        return cupat__fail(j->ctx, CUPAT_ERROR_FORMAT, RD ": '%s': malformed %s: %s", j->path,
                           j->kind, netpbm_msg[0] ? netpbm_msg : "libnetpbm error");
    struct pam *p = &j->pam;
    /* Up to tuple_type only: libnetpbm then allocates no comment strings. */
    pnm_readpaminit(j->f, p, PAM_STRUCT_SIZE(tuple_type));

    int channels;
    switch (p->depth) {
    case 1: channels = 1; break;
    case 2: channels = 4; break; /* gray+alpha -> RGBA, as for PNG */
    case 3: channels = 3; break;
    case 4: channels = 4; break;
    default:
        return cupat__fail(j->ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           RD ": '%s': PAM of depth %u (tuple type '%s'); cupat reads "
                           "depths 1 to 4",
                           j->path, p->depth, p->tuple_type);
    }
    CUPAT_TRY(check_shape(j->ctx, j->path, (size_t)p->width, (size_t)p->height, channels,
                          &j->bytes));
    long long fsize = file_size(j->f);
    long long pos = fsize >= 0 ? (long long)ftello(j->f) : -1;
    if (fsize >= 0 && pos >= 0 && (double)(fsize - pos) < pnm_min_raster(p))
        return cupat__fail(j->ctx, CUPAT_ERROR_FORMAT,
                           RD ": '%s': malformed %s: header claims %dx%d, but only %lld "
                           "bytes of pixel data follow (truncated?)",
                           j->path, j->kind, p->width, p->height, fsize - pos);

    j->data = malloc(j->bytes);
    if (!j->data)
        return cupat__fail(j->ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           RD ": '%s': %zu bytes of host memory unavailable", j->path, j->bytes);
    j->row = pnm_allocpamrow(p);
    size_t w = (size_t)p->width;
    for (int y = 0; y < p->height; y++) {
        pnm_readpamrow(p, j->row);
        uint8_t *o = j->data + (size_t)y * w * channels;
        for (size_t x = 0; x < w; x++, o += channels) {
            const sample *t = j->row[x];
            if (p->depth == 2) {
                o[0] = o[1] = o[2] = scale_sample(t[0], p->maxval);
                o[3] = scale_sample(t[1], p->maxval);
            } else {
                for (int c = 0; c < channels; c++) o[c] = scale_sample(t[c], p->maxval);
            }
        }
    }
    img->width = w;
    img->height = (size_t)p->height;
    img->channels = channels;
    img->data = j->data;
    j->data = NULL;
    return CUPAT_SUCCESS;
}

static cupat_status pnm_read_file(cupat_ctx *ctx, const char *path, FILE *f, char magic,
                                  cupat_image *img)
{
    static const char *const kinds[] = {"PBM", "PGM", "PPM", "PBM", "PGM", "PPM", "PAM"};
    struct pnm_job j = {.ctx = ctx, .path = path, .kind = kinds[magic - '1'], .f = f};
    int plain;
    jmp_buf *old = netpbm_enter(&j, &plain);
    cupat_status s = pnm_decode(&j, img);
    if (j.row) pnm_freepamrow(j.row);
    netpbm_leave(old, plain);
    free(j.data);
    return s;
}

static cupat_status pnm_encode(struct pnm_job *j, const cupat_image *img, int format)
{
    if (setjmp(j->jb))
        return cupat__fail(j->ctx, CUPAT_ERROR_IO, WR ": writing '%s' failed: %s", j->path,
                           netpbm_msg[0] ? netpbm_msg : "libnetpbm error");
    static const char *const types[5] = {"", PAM_PGM_TUPLETYPE, "GRAYSCALE_ALPHA",
                                         PAM_PPM_TUPLETYPE, "RGB_ALPHA"};
    struct pam *p = &j->pam;
    int expand = format == RPPM_FORMAT && img->channels == 1; /* gray to a .ppm */
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->len = PAM_STRUCT_SIZE(tuple_type);
    p->file = j->f;
    p->format = format;
    p->plainformat = 0;
    p->width = (int)img->width;
    p->height = (int)img->height;
    p->depth = expand ? 3u : (unsigned)img->channels;
    p->maxval = 255;
    p->bytes_per_sample = 1;
    snprintf(p->tuple_type, sizeof p->tuple_type, "%s", types[p->depth]);
    pnm_writepaminit(p);
    j->row = pnm_allocpamrow(p);
    size_t ch = (size_t)img->channels;
    for (size_t y = 0; y < img->height; y++) {
        const uint8_t *in = img->data + y * img->width * ch;
        for (size_t x = 0; x < img->width; x++, in += ch)
            for (unsigned c = 0; c < p->depth; c++) j->row[x][c] = in[expand ? 0 : c];
        pnm_writepamrow(p, j->row);
    }
    return CUPAT_SUCCESS;
}

static cupat_status pnm_write_file(cupat_ctx *ctx, const char *path, FILE *f,
                                   const cupat_image *img, int format)
{
    struct pnm_job j = {.ctx = ctx, .path = path, .f = f};
    int plain;
    jmp_buf *old = netpbm_enter(&j, &plain);
    cupat_status s = pnm_encode(&j, img, format);
    if (j.row) pnm_freepamrow(j.row);
    netpbm_leave(old, plain);
    return s;
}
#endif /* CUPAT_HAVE_NETPBM */

/* ------------------------------------------------------------ public -- */

cupat_status cupat_image_read(cupat_ctx *ctx, const char *path, cupat_image *img)
{
    if (ctx) CUPAT_TRY(cupat__begin(ctx, RD));
    if (!img) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, RD ": img is NULL");
    memset(img, 0, sizeof *img);
    if (!path) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, RD ": path is NULL");

    FILE *f = fopen(path, "rb");
    if (!f)
        return cupat__fail(ctx, CUPAT_ERROR_IO, RD ": cannot open '%s': %s", path,
                           strerror(errno));
    unsigned char magic[8];
    size_t n = fread(magic, 1, sizeof magic, f);
    cupat_status s;
    if (ferror(f)) {
        s = cupat__fail(ctx, CUPAT_ERROR_IO, RD ": cannot read '%s': %s", path, strerror(errno));
    } else if (n == 0) {
        s = cupat__fail(ctx, CUPAT_ERROR_FORMAT, RD ": '%s' is empty", path);
    } else if (n == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0) {
#ifdef CUPAT_HAVE_PNG
        rewind(f);
        s = png_read_file(ctx, path, f, img);
#else
        s = cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                        RD ": '%s' is a PNG, and this cupat was built without libpng "
                        "(Debian: libpng-dev)",
                        path);
#endif
    } else if (n >= 2 && magic[0] == 'P' && magic[1] >= '1' && magic[1] <= '7') {
#ifdef CUPAT_HAVE_NETPBM
        rewind(f);
        s = pnm_read_file(ctx, path, f, (char)magic[1], img);
#else
        s = cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                        RD ": '%s' is a PBM/PGM/PPM/PAM, and this cupat was built without "
                        "libnetpbm (Debian: libnetpbm-dev)",
                        path);
#endif
    } else {
        s = cupat__fail(ctx, CUPAT_ERROR_FORMAT,
                        RD ": '%s' is neither PNG nor PBM/PGM/PPM/PAM (first bytes "
                        "%02x %02x %02x %02x)",
                        path, magic[0], n > 1 ? magic[1] : 0, n > 2 ? magic[2] : 0,
                        n > 3 ? magic[3] : 0);
    }
    fclose(f);
    if (s != CUPAT_SUCCESS) cupat_image_free(img);
    return s;
}

enum out_kind { OUT_NONE, OUT_PNG, OUT_PGM, OUT_PPM, OUT_PNM, OUT_PAM };

static enum out_kind out_kind_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) || strlen(dot) != 4) return OUT_NONE;
    char ext[4];
    for (int i = 0; i < 3; i++) {
        char c = dot[1 + i];
        ext[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    ext[3] = '\0';
    static const struct { const char *ext; enum out_kind kind; } kinds[] = {
        {"png", OUT_PNG}, {"pgm", OUT_PGM}, {"ppm", OUT_PPM}, {"pnm", OUT_PNM}, {"pam", OUT_PAM}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(ext, kinds[i].ext) == 0) return kinds[i].kind;
    return OUT_NONE;
}

cupat_status cupat_image_write(cupat_ctx *ctx, const char *path, const cupat_image *img)
{
    if (ctx) CUPAT_TRY(cupat__begin(ctx, WR));
    if (!path) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, WR ": path is NULL");
    if (!img) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, WR ": img is NULL");
    if (img->channels < 1 || img->channels > 4)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           WR ": img->channels = %d (must be 1 to 4)", img->channels);
    if (img->width == 0 || img->height == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           WR ": image is %zux%zu; image files cannot be empty", img->width,
                           img->height);
    if (img->width > MAX_SIDE || img->height > MAX_SIDE)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           WR ": image is %zux%zu; PNG and PNM sides stop at 2^31 - 1",
                           img->width, img->height);
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, WR, "image bytes", img->width, img->height,
                              (size_t)img->channels, &bytes));
    (void)bytes; /* only the overflow check matters here */
    if (!img->data) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, WR ": img->data is NULL");

    enum out_kind kind = out_kind_of(path);
    int ch = img->channels;
    if (kind == OUT_NONE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           WR ": cannot tell the format of '%s' from its extension (use .png, "
                           ".ppm, .pgm, .pnm or .pam)",
                           path);
    if (kind == OUT_PGM && ch != 1)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           WR ": '%s': a PGM holds 1 channel, the image has %d (convert with "
                           "cupat_rgb_to_gray, or write .ppm / .png)",
                           path, ch);
    if ((kind == OUT_PPM || kind == OUT_PNM) && ch != 1 && ch != 3)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           WR ": '%s': PPM/PNM cannot hold the alpha channel of a %d-channel "
                           "image (write .png or .pam to keep it)",
                           path, ch);
#ifndef CUPAT_HAVE_PNG
    if (kind == OUT_PNG)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           WR ": '%s': this cupat was built without libpng (Debian: "
                           "libpng-dev)",
                           path);
#endif
#ifndef CUPAT_HAVE_NETPBM
    if (kind != OUT_PNG)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           WR ": '%s': this cupat was built without libnetpbm (Debian: "
                           "libnetpbm-dev)",
                           path);
#endif

    FILE *f = fopen(path, "wb");
    if (!f)
        return cupat__fail(ctx, CUPAT_ERROR_IO, WR ": cannot create '%s': %s", path,
                           strerror(errno));
    cupat_status s = CUPAT_ERROR_INTERNAL;
#ifdef CUPAT_HAVE_PNG
    if (kind == OUT_PNG) s = png_write_file(ctx, path, f, img);
#endif
#ifdef CUPAT_HAVE_NETPBM
    if (kind != OUT_PNG) {
        int format = kind == OUT_PAM                                 ? PAM_FORMAT
                     : kind == OUT_PPM || (kind == OUT_PNM && ch == 3) ? RPPM_FORMAT
                                                                       : RPGM_FORMAT;
        s = pnm_write_file(ctx, path, f, img, format);
    }
#endif
    /* Buffered data reaches the disk only here: a full disk shows up now. */
    if (s == CUPAT_SUCCESS && (fflush(f) != 0 || ferror(f)))
        s = cupat__fail(ctx, CUPAT_ERROR_IO, WR ": writing '%s' failed: %s", path,
                        strerror(errno));
    int regular = file_size(f) >= 0;
    if (fclose(f) != 0 && s == CUPAT_SUCCESS)
        s = cupat__fail(ctx, CUPAT_ERROR_IO, WR ": closing '%s' failed: %s", path,
                        strerror(errno));
    /* Leave no half-written image behind (but never unlink a device or fifo). */
    if (s != CUPAT_SUCCESS && regular) remove(path);
    return s;
}

cupat_status cupat_image_alloc(cupat_ctx *ctx, cupat_image *img, size_t width,
                               size_t height, int channels)
{
    static const char fn[] = "cupat_image_alloc";
    if (ctx) CUPAT_TRY(cupat__begin(ctx, fn));
    if (!img) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: img is NULL", fn);
    memset(img, 0, sizeof *img);
    if (channels < 1 || channels > 4)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: channels = %d (must be 1 to 4)", fn, channels);
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
