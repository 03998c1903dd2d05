/* SPDX-License-Identifier: Apache-2.0 */
/* test_image.c — image files in and out (cupat_image_read / write / alloc /
 * free) on the committed images of tests/data (see its README.md), round
 * trips through every output format, every malformed file, write failures;
 * then gray and blur through the library on real images, against reference
 * loops written from cupat.h's definitions.
 *
 * CUPAT_HAVE_PNG (from tests/image.cmake) says whether this build has PNG;
 * without it PNG reads and writes must fail with CUPAT_ERROR_NOT_SUPPORTED
 * naming the Debian package. PBM/PGM/PPM/PAM are cupat's own code, always
 * there. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, symlink, setrlimit */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef CUPAT_HAVE_PNG
enum { HAVE_PNG = 1 };
#else
enum { HAVE_PNG = 0 };
#endif

static const char *g_data; /* $CUPAT_TEST_DATA */
static char g_tmp[256];    /* this run's scratch directory */

/* Path of a file in `dir` (a few rotating buffers, so two can be live). */
static const char *join(const char *dir, const char *name)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}
#define DATA(name) join(g_data, (name))
#define TMP(name) join(g_tmp, (name))

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Whether this build reads the committed file `name` (by its extension:
 * every committed file's extension matches its contents). */
static int have_format(const char *name) { return ends_with(name, ".png") ? HAVE_PNG : 1; }
static const char *package_of(const char *name)
{
    (void)name; /* only PNG can be missing */
    return "libpng-dev";
}

static const uint8_t *px(const cupat_image *img, size_t x, size_t y)
{
    return img->data + (y * img->width + x) * (size_t)img->channels;
}

/* Read data file `name`, expecting w x h x c. Returns 1 when the image is
 * there to look at; 0 when the build lacks the format (then NOT_SUPPORTED
 * was checked) or the read failed (recorded). */
static int read_data(cupat_ctx *ctx, const char *name, cupat_image *img, size_t w, size_t h,
                     int c)
{
    cupat_status s = cupat_image_read(ctx, DATA(name), img);
    if (!have_format(name)) {
        CHECK(s == CUPAT_ERROR_NOT_SUPPORTED, "%s: %s", name, cupat_status_string(s));
        CHECK(strstr(cupat_last_error(ctx), package_of(name)) != NULL, "%s: \"%s\"", name,
              cupat_last_error(ctx));
        CHECK(img->data == NULL, "%s: data left behind", name);
        return 0;
    }
    CHECK(s == CUPAT_SUCCESS, "%s: %s: %s", name, cupat_status_string(s), cupat_last_error(ctx));
    if (s != CUPAT_SUCCESS) return 0;
    CHECK(img->width == w && img->height == h && img->channels == c,
          "%s: %zux%zu x %d, expected %zux%zu x %d", name, img->width, img->height,
          img->channels, w, h, c);
    CHECK(img->data != NULL, "%s: no data", name);
    return img->width == w && img->height == h && img->channels == c && img->data;
}

static void check_px(const cupat_image *img, const char *name, size_t x, size_t y,
                     const uint8_t *want)
{
    const uint8_t *p = px(img, x, y);
    int ok = memcmp(p, want, (size_t)img->channels) == 0;
    CHECK(ok, "%s (%zu,%zu): got %u %u %u %u, want %u %u %u %u", name, x, y, p[0],
          img->channels > 1 ? p[1] : 0, img->channels > 2 ? p[2] : 0,
          img->channels > 3 ? p[3] : 0, want[0], img->channels > 1 ? want[1] : 0,
          img->channels > 2 ? want[2] : 0, img->channels > 3 ? want[3] : 0);
}

/* Every pixel against want(x, y, out) over the whole image; reports the first miss. */
typedef void (*pixel_fn)(size_t x, size_t y, uint8_t *out);
static void check_all(const cupat_image *img, const char *name, pixel_fn want)
{
    for (size_t y = 0; y < img->height; y++)
        for (size_t x = 0; x < img->width; x++) {
            uint8_t w[4] = {0};
            want(x, y, w);
            if (memcmp(px(img, x, y), w, (size_t)img->channels) != 0) {
                check_px(img, name, x, y, w);
                return;
            }
        }
    t_checks++; /* one check for the whole image */
}

/* Two images with the same shape and bytes. */
static void check_same(const cupat_image *a, const cupat_image *b, const char *what)
{
    int shape = a->width == b->width && a->height == b->height && a->channels == b->channels;
    CHECK(shape, "%s: shapes differ", what);
    if (shape)
        CHECK(memcmp(a->data, b->data, a->width * a->height * (size_t)a->channels) == 0,
              "%s: pixels differ", what);
}

/* ------------------------------------------------- formulas of make_data.py -- */
static unsigned g16(size_t x, size_t y, size_t c)
{
    if (x == 0 && y == 0) return 0;
    if (x == 32 && y == 16) return 65535;
    return (unsigned)((x * 2053 + y * 3851 + c * 21841 + x * y * 131) & 0xFFFF);
}
static uint8_t round8(unsigned v, unsigned maxval)
{
    return (uint8_t)((v * 255u + maxval / 2) / maxval);
}
static void want_gradient16(size_t x, size_t y, uint8_t *o)
{
    for (int c = 0; c < 3; c++) o[c] = round8(g16(x, y, c), 65535);
}
static void want_palette4(size_t x, size_t y, uint8_t *o)
{
    unsigned i = (unsigned)((x + 3 * y) % 16);
    o[0] = (uint8_t)(i * 17);
    o[1] = (uint8_t)(255 - i * 16);
    o[2] = (uint8_t)((i * 53) & 255);
}
static void want_palette_trns(size_t x, size_t y, uint8_t *o)
{
    unsigned i = (unsigned)((x * 7 + y * 31) % 200);
    o[0] = (uint8_t)i;
    o[1] = (uint8_t)((2 * i) & 255);
    o[2] = (uint8_t)(255 - i);
    o[3] = (uint8_t)(i < 50 ? i * 5 : 255);
}
static void want_graya(size_t x, size_t y, uint8_t *o)
{
    o[0] = o[1] = o[2] = (uint8_t)((x * 23 + y * 7) & 255);
    o[3] = (uint8_t)(255 - x * 20);
}
static void want_gray2(size_t x, size_t y, uint8_t *o) { o[0] = (uint8_t)(((x + y) % 4) * 85); }
static void want_gray_trns(size_t x, size_t y, uint8_t *o)
{
    o[0] = o[1] = o[2] = (uint8_t)((x * 40 + y * 9) & 255);
    o[3] = o[0] == 40 ? 0 : 255;
}
static void want_plain_pgm(size_t x, size_t y, uint8_t *o)
{
    o[0] = (uint8_t)(((x * 5 + y * 3) % 16) * 17);
}
static void want_plain_ppm(size_t x, size_t y, uint8_t *o)
{
    for (int c = 0; c < 3; c++) o[c] = round8((unsigned)((x * 300 + y * 200 + c * 50) % 1001), 1000);
}
static void want_bitmap(size_t x, size_t y, uint8_t *o)
{
    static const char *rows[2] = {"101100", "010011"}; /* 1 is black in PBM */
    o[0] = rows[y][x] == '1' ? 0 : 255;
}
static void want_rgba_pam(size_t x, size_t y, uint8_t *o)
{
    for (int c = 0; c < 4; c++) o[c] = (uint8_t)((x * 80 + c * 10 + y * 5) & 255);
}

/* ------------------------------------------------------------ arguments -- */
static void test_arguments(cupat_ctx *ctx)
{
    cupat_image img = {.width = 99, .height = 99, .channels = 3};
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "path", cupat_image_read(ctx, NULL, &img));
    CHECK(img.data == NULL && img.width == 0, "img not cleared on failure");
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "img", cupat_image_read(ctx, DATA("x.png"), NULL));
    /* NULL ctx: the message goes to the thread's slot. */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "path", cupat_image_read(NULL, NULL, &img));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "img", cupat_image_write(NULL, TMP("a.png"), NULL));

    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "path", cupat_image_write(ctx, NULL, &img));
    cupat_image bad = {.width = 4, .height = 4, .channels = 3, .data = NULL};
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "data", cupat_image_write(ctx, TMP("a.png"), &bad));
    uint8_t pix[64] = {0};
    bad.data = pix;
    bad.channels = 0;
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels", cupat_image_write(ctx, TMP("a.png"), &bad));
    bad.channels = 5;
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels", cupat_image_write(ctx, TMP("a.png"), &bad));
    /* 2 (gray+alpha) is no cupat_image count (cupat.h: 1, 3 or 4): a read gives
     * RGBA for it, and a write of 2 was taken by .png and .pam only */
    bad.channels = 2;
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "img->channels = 2 (must be 1 gray, 3 RGB or 4 RGBA",
                cupat_image_write(ctx, TMP("a.png"), &bad));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "img->channels = 2",
                cupat_image_write(ctx, TMP("a.pam"), &bad));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "img->channels = 2",
                cupat_image_write_stream(ctx, stdout, "pam", &bad));
    CHECK(access(TMP("a.pam"), F_OK) != 0, "a refused 2-channel write created a file");
    bad.channels = 1;
    bad.width = 0;
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "0x4", cupat_image_write(ctx, TMP("a.png"), &bad));
    bad.width = (size_t)1 << 31;
    bad.height = 1;
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "2^31", cupat_image_write(ctx, TMP("a.png"), &bad));
    CHECK(access(TMP("a.png"), F_OK) != 0, "a refused write created a file");

    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "img", cupat_image_alloc(ctx, NULL, 1, 1, 1));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels = 0", cupat_image_alloc(ctx, &img, 2, 2, 0));
    CHECK(img.data == NULL, "alloc failure left data");
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "channels = 5", cupat_image_alloc(NULL, &img, 2, 2, 5));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels = 2 (must be 1 gray, 3 RGB or 4 RGBA",
                cupat_image_alloc(ctx, &img, 2, 2, 2));
    CHECK(img.data == NULL && img.channels == 0, "a refused 2-channel alloc left an image");
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows", cupat_image_alloc(ctx, &img, SIZE_MAX / 2, 3, 1));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows", cupat_image_alloc(ctx, &img, (size_t)1 << 32, (size_t)1 << 31, 4));
    CHECK(img.data == NULL && img.width == 0, "alloc failure left a shape");

    CHECK_OK(ctx, cupat_image_alloc(ctx, &img, 7, 5, 3));
    int zero = img.data != NULL;
    for (size_t i = 0; zero && i < 7 * 5 * 3; i++) zero = img.data[i] == 0;
    CHECK(zero && img.width == 7 && img.height == 5 && img.channels == 3, "alloc 7x5x3");
    cupat_image_free(&img);
    CHECK(img.data == NULL && img.width == 0, "free clears the image");
    cupat_image_free(&img); /* twice is fine */
    cupat_image_free(NULL);
    CHECK_OK(NULL, cupat_image_alloc(NULL, &img, 0, 9, 1));
    CHECK(img.data == NULL && img.height == 9, "empty alloc");
    cupat_image_free(&img);
}

/* --------------------------------------------------------- valid files -- */
static void test_valid(cupat_ctx *ctx)
{
    cupat_image a = {0}, b = {0};

    /* A photo, as PNG and as P6: same pixels. */
    if (read_data(ctx, "astronaut.png", &a, 121, 91, 3)) {
        check_px(&a, "astronaut.png", 0, 0, (const uint8_t[]){114, 91, 48});
        check_px(&a, "astronaut.png", 10, 20, (const uint8_t[]){170, 132, 91});
        check_px(&a, "astronaut.png", 120, 5, (const uint8_t[]){197, 182, 183});
    }
    if (read_data(NULL, "astronaut.ppm", &b, 121, 91, 3)) {
        check_px(&b, "astronaut.ppm", 10, 20, (const uint8_t[]){170, 132, 91});
        if (a.data) check_same(&a, &b, "astronaut.png vs .ppm");
    }
    cupat_image_free(&a);
    cupat_image_free(&b);

    if (read_data(ctx, "camera.png", &a, 97, 67, 1)) {
        check_px(&a, "camera.png", 0, 0, (const uint8_t[]){42});
        check_px(&a, "camera.png", 10, 20, (const uint8_t[]){50});
        check_px(&a, "camera.png", 96, 5, (const uint8_t[]){205});
    }
    if (read_data(ctx, "camera.pgm", &b, 97, 67, 1) && a.data)
        check_same(&a, &b, "camera.png vs .pgm");
    cupat_image_free(&a);
    cupat_image_free(&b);

    /* libpng's own test image: RGBA, Adam7-interlaced; the PAM holds the
     * pixels as make_data.py's independent decoder saw them. */
    if (read_data(NULL, "pngtest.png", &a, 91, 69, 4))
        check_px(&a, "pngtest.png", 10, 20, (const uint8_t[]){49, 33, 16, 82});
    if (read_data(ctx, "pngtest.pam", &b, 91, 69, 4) && a.data)
        check_same(&a, &b, "pngtest.png vs .pam");
    cupat_image_free(&a);
    cupat_image_free(&b);

    /* 16 bits a sample: both formats round to 8 bits alike. */
    if (read_data(ctx, "gradient16.png", &a, 33, 17, 3)) {
        check_all(&a, "gradient16.png", want_gradient16);
        check_px(&a, "gradient16.png", 32, 16, (const uint8_t[]){255, 255, 255});
    }
    if (read_data(ctx, "gradient16.ppm", &b, 33, 17, 3)) check_all(&b, "gradient16.ppm", want_gradient16);
    cupat_image_free(&a);
    cupat_image_free(&b);

    static const struct {
        const char *name;
        size_t w, h;
        int c;
        pixel_fn want;
    } synth[] = {
        {"palette4.png", 13, 7, 3, want_palette4},         /* 4-bit palette -> RGB   */
        {"palette_trns.png", 9, 5, 4, want_palette_trns},  /* palette + tRNS -> RGBA */
        {"graya.png", 11, 6, 4, want_graya},               /* gray+alpha -> RGBA     */
        {"gray2.png", 10, 3, 1, want_gray2},               /* 2-bit gray -> 8        */
        {"gray_trns.png", 5, 2, 4, want_gray_trns},        /* gray + tRNS -> RGBA    */
        {"gray_trns_anc.png", 5, 2, 4, want_gray_trns},    /* ancillary chunks skipped */
        {"plain.pgm", 4, 3, 1, want_plain_pgm},            /* P2, comments, maxval 15 */
        {"plain.ppm", 3, 2, 3, want_plain_ppm},            /* P3, maxval 1000        */
        {"bitmap.pbm", 6, 2, 1, want_bitmap},              /* P1                     */
        {"rgba.pam", 3, 2, 4, want_rgba_pam},              /* P7 RGB_ALPHA           */
    };
    for (size_t i = 0; i < sizeof synth / sizeof synth[0]; i++) {
        if (read_data(ctx, synth[i].name, &a, synth[i].w, synth[i].h, synth[i].c))
            check_all(&a, synth[i].name, synth[i].want);
        cupat_image_free(&a);
    }
}

/* ------------------------------------------------------ malformed files -- */
static void test_malformed(cupat_ctx *ctx)
{
    static const struct {
        const char *name;
        cupat_status want;
        const char *needle; /* besides the file's name */
    } cases[] = {
        {"truncated.png", CUPAT_ERROR_FORMAT, "PNG"},
        {"badcrc.png", CUPAT_ERROR_FORMAT, "CRC"},
        {"badzlib.png", CUPAT_ERROR_FORMAT, "PNG"},
        {"zerowidth.png", CUPAT_ERROR_FORMAT, "IHDR"},
        {"hugedims.png", CUPAT_ERROR_FORMAT, "limits"},
        {"short_huge.png", CUPAT_ERROR_FORMAT, "truncated"},
        {"hugechunk.png", CUPAT_ERROR_FORMAT, "end of file"},
        {"badheader.ppm", CUPAT_ERROR_FORMAT, "malformed"},
        {"huge.ppm", CUPAT_ERROR_FORMAT, "100000x100000"},
        {"truncated.pgm", CUPAT_ERROR_FORMAT, "truncated"},
        {"truncated_plain.pgm", CUPAT_ERROR_FORMAT, "malformed"},
        {"badsample.pgm", CUPAT_ERROR_FORMAT, "maxval"},
        {"badmaxval.pgm", CUPAT_ERROR_FORMAT, "malformed"},
        {"empty.png", CUPAT_ERROR_FORMAT, "empty"},
        {"text.png", CUPAT_ERROR_FORMAT, "neither PNG"},
        /* its first bytes 89 50 4e 47: a PNG, not "neither PNG nor ..." */
        {"badsig.png", CUPAT_ERROR_FORMAT, "corrupt PNG signature: the first bytes are 89 50 4e 47 0a"},
        {"no-such-file.png", CUPAT_ERROR_IO, "No such file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *name = cases[i].name;
        cupat_status want = cases[i].want;
        const char *needle = cases[i].needle;
        /* Files whose magic names a format this build lacks stop there. */
        if (want == CUPAT_ERROR_FORMAT && strcmp(name, "empty.png") != 0 &&
            strcmp(name, "text.png") != 0 && strcmp(name, "badsig.png") != 0 &&
            !have_format(name)) {
            want = CUPAT_ERROR_NOT_SUPPORTED;
            needle = package_of(name);
        }
        for (int with_ctx = 0; with_ctx < 2; with_ctx++) {
            cupat_ctx *c = with_ctx ? ctx : NULL;
            cupat_image img = {.width = 5, .height = 5, .channels = 1};
            cupat_status s = cupat_image_read(c, DATA(name), &img);
            const char *m = cupat_last_error(c);
            CHECK(s == want, "%s: %s, expected %s (%s)", name, cupat_status_string(s),
                  cupat_status_string(want), m);
            CHECK(strstr(m, name) != NULL && strstr(m, needle) != NULL,
                  "%s: message \"%s\" lacks the name or \"%s\"", name, m, needle);
            CHECK(img.data == NULL && img.width == 0 && img.height == 0,
                  "%s: image not cleared", name);
            cupat_image_free(&img);
        }
    }
    /* A directory opens but does not read. */
    cupat_image img = {0};
    CHECK_FAILS(ctx, CUPAT_ERROR_IO, "directory", cupat_image_read(ctx, g_data, &img));
    CHECK(img.data == NULL, "directory read left data");
}

/* ---------------------------------------------------------------- leaks -- */
/* Heap bytes in use as glibc's malloc sees them (all arenas), or the
 * resident set where that is not available. */
static size_t heap_in_use(int *exact)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 m = mallinfo2();
    *exact = 1;
    return m.uordblks + m.hblkhd;
#else
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    *exact = 0;
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
#endif
}

static void write_file(const char *path, const char *head, size_t pad, const char *fill,
                       const char *tail)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "create %s: %s", path, strerror(errno));
    if (!f) return;
    fputs(head, f);
    for (size_t i = 0; i < pad; i++) fputs(fill, f);
    fputs(tail, f);
    CHECK(fclose(f) == 0, "write %s", path);
}

/* Issue 18: a PAM header without ENDHDR (worse with a long comment) leaked
 * what libnetpbm had allocated before its error jump (up to 300 KB a read
 * with many comment lines).
 * Every failing read must give back all it took: each bad file is read many
 * times and the heap must not grow. */
static void test_no_leaks(cupat_ctx *ctx)
{
    static const struct {
        const char *name, *head;
        size_t pad; /* copies of `fill` after head */
        const char *fill;
        const char *tail;
    } made[] = {
        {"noendhdr.pam", "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\n", 0, "", ""},
        {"comments.pam", "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\n", 100000, "# x\n", ""},
        {"longcomment.pam", "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\n#", 1 << 20, "c", "\nMAXVAL 255\n"},
        {"longtupltype.pam", "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nTUPLTYPE ", 1 << 20,
         "T", "\n"},
        {"longline.pam", "P7\nWIDTH 2\nHEIGHT 2\n", 1 << 20, " ", "DEPTH 3\n"},
        {"shortraster.pam", "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nENDHDR\n", 5, "x", ""},
        {"comments.ppm", "P6\n", 100000, "# x\n", "2 2\n255\n"},
        {"badwidth.pgm", "P5\n", 1 << 16, "9", " 2\n255\n"},
        {"badsample_raw.pgm", "P5 2 1 3\n", 2, "z", ""},
    };
    static const char *data_files[] = {
        "truncated.png", "badcrc.png",    "badzlib.png",   "zerowidth.png",
        "hugedims.png",  "short_huge.png", "hugechunk.png", "badheader.ppm", "huge.ppm",
        "truncated.pgm", "truncated_plain.pgm", "badsample.pgm", "badmaxval.pgm",
    };
    enum { N_MADE = sizeof made / sizeof made[0], N_DATA = sizeof data_files / sizeof data_files[0] };
    const char *paths[N_MADE + N_DATA];
    static char made_paths[N_MADE][1024];
    for (size_t i = 0; i < N_MADE; i++) {
        snprintf(made_paths[i], sizeof made_paths[i], "%s", TMP(made[i].name));
        write_file(made_paths[i], made[i].head, made[i].pad, made[i].fill, made[i].tail);
        paths[i] = made_paths[i];
    }
    for (size_t i = 0; i < N_DATA; i++) paths[N_MADE + i] = strdup(DATA(data_files[i]));

    for (size_t i = 0; i < N_MADE + N_DATA; i++) {
        if (!paths[i] || (i >= N_MADE && !have_format(paths[i]))) continue;
        cupat_image img = {0};
        /* One read first: whatever a library sets up once is not a leak. */
        cupat_status s = cupat_image_read(ctx, paths[i], &img);
        CHECK(s == CUPAT_ERROR_FORMAT,
              "%s: %s (%s)", paths[i], cupat_status_string(s), cupat_last_error(ctx));
        int exact;
        size_t before = heap_in_use(&exact);
        int reps = i < N_MADE ? 200 : 50;
        for (int r = 0; r < reps; r++) {
            cupat_image_read(r % 2 ? ctx : NULL, paths[i], &img);
            cupat_image_free(&img);
        }
        size_t after = heap_in_use(&exact);
        size_t limit = exact ? 2048 : 16 << 20;
        CHECK(after <= before + limit, "%s: %d failing reads grew the heap by %zu bytes", paths[i],
              reps, after - before);
    }
    for (size_t i = 0; i < N_MADE; i++) unlink(made_paths[i]);
    for (size_t i = N_MADE; i < N_MADE + N_DATA; i++) free((void *)paths[i]);
}

/* ---------------------------------------------------------- round trips -- */
static void fill_random(cupat_image *img)
{
    size_t n = img->width * img->height * (size_t)img->channels;
    for (size_t i = 0; i < n; i++) img->data[i] = (uint8_t)test_rand();
    /* Extremes somewhere in every image. */
    img->data[0] = 0;
    img->data[n - 1] = 255;
}

/* What reading back a `channels` image (1, 3 or 4) written as `ext` gives:
 * the channel count, or 0 when the write must be refused (INVALID_VALUE). */
static int readback_channels(const char *ext, int channels)
{
    if (strcmp(ext, "png") == 0 || strcmp(ext, "PNG") == 0 || strcmp(ext, "pam") == 0)
        return channels;
    if (strcmp(ext, "pgm") == 0) return channels == 1 ? 1 : 0;
    if (strcmp(ext, "ppm") == 0) return channels == 1 || channels == 3 ? 3 : 0;
    if (strcmp(ext, "pnm") == 0) return channels == 1 || channels == 3 ? channels : 0;
    return 0;
}

/* Whether `got` (read back) holds `src`, widened as readback_channels says. */
static int same_widened(const cupat_image *src, const cupat_image *got)
{
    size_t n = src->width * src->height;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = src->data + i * (size_t)src->channels;
        const uint8_t *g = got->data + i * (size_t)got->channels;
        uint8_t w[4];
        switch (src->channels * 10 + got->channels) {
        case 11: case 33: case 44: memcpy(w, s, (size_t)src->channels); break;
        case 13: w[0] = w[1] = w[2] = s[0]; break;
        default: return 0;
        }
        if (memcmp(w, g, (size_t)got->channels) != 0) return 0;
    }
    return 1;
}

static void test_roundtrip(cupat_ctx *ctx)
{
    static const char *exts[] = {"png", "pam", "ppm", "pgm", "pnm", "PNG"};
    static const size_t sizes[][2] = {{1, 1}, {3, 2}, {37, 19}, {200, 3}, {1, 64}};
    int n = 0;
    for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++)
        for (int ch = 1; ch <= 4; ch += 1 + (ch == 1)) /* 1, 3, 4: a cupat_image's counts */
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                const char *ext = exts[e];
                int back = readback_channels(ext, ch);
                int have = strcmp(ext, "png") == 0 || strcmp(ext, "PNG") == 0 ? HAVE_PNG : 1;
                char name[64];
                snprintf(name, sizeof name, "rt%d_%d.%s", n++, ch, ext);
                const char *path = TMP(name);
                cupat_image src = {0}, got = {0};
                CHECK_OK(ctx, cupat_image_alloc(ctx, &src, sizes[k][0], sizes[k][1], ch));
                if (!src.data) continue;
                fill_random(&src);
                cupat_status s = cupat_image_write(ctx, path, &src);
                if (!back) {
                    CHECK(s == CUPAT_ERROR_INVALID_VALUE, "%s: %d channels: %s (%s)", name, ch,
                          cupat_status_string(s), cupat_last_error(ctx));
                    CHECK(access(path, F_OK) != 0, "%s: refused write left a file", name);
                } else if (!have) {
                    CHECK(s == CUPAT_ERROR_NOT_SUPPORTED, "%s: %s", name, cupat_status_string(s));
                } else {
                    CHECK(s == CUPAT_SUCCESS, "%s: write: %s: %s", name, cupat_status_string(s),
                          cupat_last_error(ctx));
                    s = cupat_image_read(ctx, path, &got);
                    CHECK(s == CUPAT_SUCCESS, "%s: read back: %s: %s", name,
                          cupat_status_string(s), cupat_last_error(ctx));
                    CHECK(got.width == src.width && got.height == src.height &&
                              got.channels == back,
                          "%s: came back %zux%zu x %d", name, got.width, got.height,
                          got.channels);
                    if (s == CUPAT_SUCCESS && got.width == src.width &&
                        got.height == src.height && got.channels == back)
                        CHECK(same_widened(&src, &got), "%s: pixels differ", name);
                    /* Raw (binary) netpbm variants. */
                    FILE *f = fopen(path, "rb");
                    char magic[3] = {0};
                    if (f) {
                        CHECK(fread(magic, 1, 2, f) == 2, "%s: short file", name);
                        fclose(f);
                    }
                    if (strcmp(ext, "ppm") == 0) CHECK(strcmp(magic, "P6") == 0, "%s: %s", name, magic);
                    if (strcmp(ext, "pgm") == 0) CHECK(strcmp(magic, "P5") == 0, "%s: %s", name, magic);
                    if (strcmp(ext, "pam") == 0) CHECK(strcmp(magic, "P7") == 0, "%s: %s", name, magic);
                    if (strcmp(ext, "pnm") == 0)
                        CHECK(strcmp(magic, ch == 1 ? "P5" : "P6") == 0, "%s: %s", name, magic);
                    if (ext[0] == 'p' && ext[1] == 'n' && ext[2] == 'g')
                        CHECK(memcmp(magic, "\x89P", 2) == 0, "%s: not a PNG", name);
                }
                cupat_image_free(&src);
                cupat_image_free(&got);
                unlink(path);
            }
}

/* -------------------------------------------------------------- streams -- */
/* The bytes of a file (NULL on failure, recorded). */
static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    size_t n = 0, cap = 0, got;
    CHECK(f != NULL, "open %s: %s", path, strerror(errno));
    if (!f) return NULL;
    do {
        if (n == cap && !(b = realloc(b, cap = cap ? 2 * cap : 65536))) break;
        got = fread(b + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *size = n;
    return b;
}

/* Writes bytes into a pipe or FIFO from another thread, in small pieces so
 * the reader meets short reads. */
typedef struct feeder {
    const char *fifo; /* open this for writing, or use fd */
    int fd;
    const uint8_t *data;
    size_t size;
} feeder;

static void *feeder_main(void *arg)
{
    feeder *f = arg;
    int fd = f->fifo ? open(f->fifo, O_WRONLY) : f->fd;
    for (size_t at = 0; fd >= 0 && at < f->size;) {
        size_t k = f->size - at < 1000 ? f->size - at : 1000;
        ssize_t w = write(fd, f->data + at, k);
        if (w <= 0) break; /* the reader gave up: EPIPE (SIGPIPE is ignored) */
        at += (size_t)w;
    }
    if (fd >= 0) close(fd);
    return NULL;
}

static void same_image(const cupat_image *got, const cupat_image *want, const char *what)
{
    int shape = got->width == want->width && got->height == want->height &&
                got->channels == want->channels && got->data;
    CHECK(shape, "%s: %zux%zu x %d, expected %zux%zu x %d", what, got->width, got->height,
          got->channels, want->width, want->height, want->channels);
    if (shape) check_same(got, want, what);
}

/* Issue 18: a pipe or FIFO could not be read (the reader rewound after
 * looking at the signature). Every readable stream now works, and memory. */
static void test_streams(cupat_ctx *ctx)
{
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    static const char *names[] = {"astronaut.png", "gradient16.png", "astronaut.ppm",
                                  "camera.pgm",    "pngtest.pam",    "plain.ppm",
                                  "plain.pgm",     "bitmap.pbm",     "gradient16.ppm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *name = names[i];
        if (!have_format(name)) continue;
        cupat_image want = {0}, got = {0};
        size_t size = 0;
        uint8_t *bytes = slurp(DATA(name), &size);
        CHECK_OK(ctx, cupat_image_read(ctx, DATA(name), &want));
        if (!bytes || !want.data) goto next;
        char what[128];

        snprintf(what, sizeof what, "%s from memory", name);
        CHECK_OK(ctx, cupat_image_read_memory(ctx, bytes, size, &got));
        same_image(&got, &want, what);
        cupat_image_free(&got);

        /* A pipe, read as a stream. */
        int fds[2];
        CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
        feeder fd_feed = {NULL, fds[1], bytes, size};
        pthread_t t;
        if (pthread_create(&t, NULL, feeder_main, &fd_feed) == 0) {
            FILE *f = fdopen(fds[0], "rb");
            snprintf(what, sizeof what, "%s through a pipe", name);
            CHECK_OK(ctx, cupat_image_read_stream(ctx, f, what, &got));
            same_image(&got, &want, what);
            cupat_image_free(&got);
            fclose(f);
            pthread_join(t, NULL);
        }

        /* A FIFO, read by its path. */
        const char *fifo = TMP("fifo");
        CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s: %s", fifo, strerror(errno));
        feeder fifo_feed = {fifo, -1, bytes, size};
        if (pthread_create(&t, NULL, feeder_main, &fifo_feed) == 0) {
            snprintf(what, sizeof what, "%s through a FIFO", name);
            CHECK_OK(ctx, cupat_image_read(ctx, fifo, &got));
            same_image(&got, &want, what);
            cupat_image_free(&got);
            pthread_join(t, NULL);
        }
        unlink(fifo);
    next:
        free(bytes);
        cupat_image_free(&want);
    }

    /* Two images in one file, read one after the other from the stream: the
     * first read gives back what its buffer took past its image. */
    {
        size_t n1 = 0, n2 = 0;
        uint8_t *b1 = slurp(DATA("astronaut.ppm"), &n1), *b2 = slurp(DATA("camera.pgm"), &n2);
        cupat_image a = {0}, b = {0}, got = {0};
        const char *two = TMP("two.pnm");
        FILE *f = fopen(two, "wb");
        if (f && b1 && b2) {
            fwrite(b1, 1, n1, f);
            fwrite(b2, 1, n2, f);
        }
        if (f) fclose(f);
        CHECK_OK(ctx, cupat_image_read(ctx, DATA("astronaut.ppm"), &a));
        CHECK_OK(ctx, cupat_image_read(ctx, DATA("camera.pgm"), &b));
        f = fopen(two, "rb");
        if (f && a.data && b.data) {
            CHECK_OK(ctx, cupat_image_read_stream(ctx, f, NULL, &got));
            same_image(&got, &a, "first of two images");
            cupat_image_free(&got);
            CHECK_OK(ctx, cupat_image_read_stream(ctx, f, NULL, &got));
            same_image(&got, &b, "second of two images");
            cupat_image_free(&got);
            CHECK_FAILS(ctx, CUPAT_ERROR_FORMAT, "'(stream)' is empty",
                        cupat_image_read_stream(ctx, f, NULL, &got));
        }
        if (f) fclose(f);
        unlink(two);
        free(b1);
        free(b2);
        cupat_image_free(&a);
        cupat_image_free(&b);
    }

    /* Malformed files fail alike from memory, named "(memory)". */
    static const char *bad[] = {"truncated.png", "badcrc.png",    "short_huge.png",
                                "badheader.ppm", "huge.ppm",      "truncated.pgm",
                                "badsample.pgm", "truncated_plain.pgm", "text.png",
                                "badsig.png"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t size = 0;
        uint8_t *bytes = slurp(DATA(bad[i]), &size);
        cupat_image img = {0};
        cupat_status s = cupat_image_read_memory(ctx, bytes, size, &img);
        cupat_status want = have_format(bad[i]) || strcmp(bad[i], "text.png") == 0 ||
                                    strcmp(bad[i], "badsig.png") == 0
                                ? CUPAT_ERROR_FORMAT
                                : CUPAT_ERROR_NOT_SUPPORTED;
        CHECK(s == want && strstr(cupat_last_error(ctx), "(memory)") != NULL &&
                  strstr(cupat_last_error(ctx), "cupat_image_read_memory") != NULL,
              "%s from memory: %s (%s)", bad[i], cupat_status_string(s), cupat_last_error(ctx));
        CHECK(img.data == NULL && img.width == 0, "%s from memory: image not cleared", bad[i]);
        free(bytes);
    }

    /* Writes to streams, read back from them, in every format. */
    static const struct { const char *format; int ch; } outs[] = {
        {"png", 3}, {"PNG", 4}, {"pam", 1}, {".pam", 4}, {"ppm", 1},
        {"ppm", 3}, {"pgm", 1}, {"pnm", 1}, {"pnm", 3},
    };
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        int png = (outs[i].format[0] | 0x20) == 'p' && (outs[i].format[1] | 0x20) == 'n' &&
                  (outs[i].format[2] | 0x20) == 'g';
        cupat_image src = {0}, got = {0};
        CHECK_OK(ctx, cupat_image_alloc(ctx, &src, 23, 7, outs[i].ch));
        if (!src.data) continue;
        fill_random(&src);
        int fds[2];
        CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
        FILE *w = fdopen(fds[1], "wb"), *r = fdopen(fds[0], "rb");
        cupat_status s = cupat_image_write_stream(ctx, w, outs[i].format, &src);
        fclose(w); /* the image fits in the pipe's buffer */
        if (png && !HAVE_PNG) {
            CHECK(s == CUPAT_ERROR_NOT_SUPPORTED, "write_stream %s: %s", outs[i].format,
                  cupat_status_string(s));
        } else {
            CHECK(s == CUPAT_SUCCESS, "write_stream %s, %d ch: %s: %s", outs[i].format,
                  outs[i].ch, cupat_status_string(s), cupat_last_error(ctx));
            CHECK_OK(ctx, cupat_image_read_stream(ctx, r, outs[i].format, &got));
            const char *ext = outs[i].format[0] == '.' ? outs[i].format + 1 : outs[i].format;
            int back = readback_channels(ext, outs[i].ch);
            CHECK(got.data && got.width == 23 && got.height == 7 && got.channels == back &&
                      same_widened(&src, &got),
                  "write_stream %s, %d ch: read back %zux%zu x %d", outs[i].format, outs[i].ch,
                  got.width, got.height, got.channels);
        }
        fclose(r);
        cupat_image_free(&src);
        cupat_image_free(&got);
    }

    /* Arguments, and a stream that cannot take the image. */
    cupat_image img = {0};
    CHECK_OK(ctx, cupat_image_alloc(ctx, &img, 64, 64, 3));
    FILE *full = fopen("/dev/full", "wb");
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "f is NULL", cupat_image_write_stream(ctx, NULL, "ppm", &img));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "format is NULL",
                cupat_image_write_stream(ctx, full ? full : stdout, NULL, &img));
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "format 'bmp'",
                cupat_image_write_stream(NULL, full ? full : stdout, "bmp", &img));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "PGM",
                cupat_image_write_stream(ctx, full ? full : stdout, "pgm", &img));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "img is NULL",
                cupat_image_write_stream(ctx, full ? full : stdout, "ppm", NULL));
    if (full) {
        CHECK_FAILS(ctx, CUPAT_ERROR_IO, "'(stream)' failed", cupat_image_write_stream(ctx, full, "ppm", &img));
        fclose(full);
    }
    cupat_image_free(&img);
    img.width = 3;
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "f is NULL", cupat_image_read_stream(ctx, NULL, "x", &img));
    CHECK(img.width == 0, "read_stream did not clear img");
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "img is NULL", cupat_image_read_stream(ctx, stdin, "x", NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "data is NULL", cupat_image_read_memory(ctx, NULL, 5, &img));
    CHECK_FAILS(NULL, CUPAT_ERROR_FORMAT, "'(memory)' is empty", cupat_image_read_memory(NULL, NULL, 0, &img));
    CHECK_FAILS(ctx, CUPAT_ERROR_FORMAT, "neither PNG", cupat_image_read_memory(ctx, "P", 1, &img));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "img is NULL", cupat_image_read_memory(ctx, "P5", 2, NULL));
    signal(SIGPIPE, old_pipe);
}

/* --------------------------------------------------------- write errors -- */
static void test_write_errors(cupat_ctx *ctx)
{
    const char *ext = HAVE_PNG ? "png" : "ppm";
    cupat_image img = {0};
    CHECK_OK(ctx, cupat_image_alloc(ctx, &img, 64, 64, 3));
    if (!img.data) return;
    fill_random(&img);

    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "extension", cupat_image_write(ctx, TMP("noext"), &img));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "extension", cupat_image_write(ctx, TMP("out.bmp"), &img));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "extension", cupat_image_write(ctx, TMP("d.png/out"), &img));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "PGM", cupat_image_write(ctx, TMP("rgb.pgm"), &img));
    if (!HAVE_PNG) /* a build without libpng: PNG writes say so */
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "libpng-dev", cupat_image_write(ctx, TMP("a.png"), &img));
    char name[64];

    /* A directory that does not exist. */
    snprintf(name, sizeof name, "/nonexistent-cupat-dir/out.%s", ext);
    CHECK_FAILS(ctx, CUPAT_ERROR_IO, "nonexistent-cupat-dir", cupat_image_write(ctx, name, &img));
    CHECK_FAILS(NULL, CUPAT_ERROR_IO, "No such file", cupat_image_write(NULL, name, &img));

    /* A directory where the file should go. */
    snprintf(name, sizeof name, "dir.%s", ext);
    const char *dir = TMP(name);
    CHECK(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
    CHECK_FAILS(ctx, CUPAT_ERROR_IO, "Is a directory", cupat_image_write(ctx, dir, &img));
    rmdir(dir);

    /* A full disk: /dev/full accepts the open and fails the writes. */
    snprintf(name, sizeof name, "full.%s", ext);
    const char *full = TMP(name);
    if (access("/dev/full", W_OK) == 0 && symlink("/dev/full", full) == 0) {
        CHECK_FAILS(ctx, CUPAT_ERROR_IO, "full", cupat_image_write(ctx, full, &img));
        struct stat st;
        CHECK(lstat(full, &st) == 0, "the symlink to a device was removed");
        unlink(full);
    }

    /* A file-size limit: the write fails part way into a regular file,
     * which must not stay behind half written. */
    struct rlimit old;
    snprintf(name, sizeof name, "limited.%s", ext);
    const char *limited = TMP(name);
    if (getrlimit(RLIMIT_FSIZE, &old) == 0) {
        struct rlimit lim = old;
        lim.rlim_cur = 1000;
        void (*prev)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of a signal */
        if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
            cupat_status s = cupat_image_write(ctx, limited, &img);
            setrlimit(RLIMIT_FSIZE, &old);
            CHECK(s == CUPAT_ERROR_IO, "size-limited write: %s (%s)", cupat_status_string(s),
                  cupat_last_error(ctx));
            CHECK(strstr(cupat_last_error(ctx), limited) != NULL, "\"%s\" lacks the path",
                  cupat_last_error(ctx));
            CHECK(access(limited, F_OK) != 0, "a half-written file stayed behind");
            unlink(limited);
        }
        signal(SIGXFSZ, prev);
    }
    cupat_image_free(&img);
}

/* -------------------------------------------------------------- threads -- */
/* Reads from several threads at once, NULL ctx (per-thread messages): libpng
 * state is per call, and the PNM code has no global state. */
typedef struct reader {
    const cupat_image *want[2]; /* astronaut.png, astronaut.ppm (NULL: format absent) */
    int bad;                    /* reads that gave the wrong result */
} reader;

static void *reader_main(void *arg)
{
    reader *r = arg;
    static const char *names[2] = {"astronaut.png", "astronaut.ppm"};
    static const char *broken[2] = {"badzlib.png", "truncated_plain.pgm"};
    char path[2][1024], bad_path[2][1024];
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "%s/%s", g_data, names[k]);
        snprintf(bad_path[k], sizeof bad_path[k], "%s/%s", g_data, broken[k]);
    }
    for (int it = 0; it < 20; it++)
        for (int k = 0; k < 2; k++) {
            if (!r->want[k]) continue;
            cupat_image img = {0};
            if (cupat_image_read(NULL, path[k], &img) != CUPAT_SUCCESS ||
                memcmp(img.data, r->want[k]->data, 121 * 91 * 3) != 0)
                r->bad++;
            cupat_image_free(&img);
            if (cupat_image_read(NULL, bad_path[k], &img) != CUPAT_ERROR_FORMAT ||
                !strstr(cupat_last_error(NULL), broken[k]))
                r->bad++;
        }
    return NULL;
}

static void test_threads(void)
{
    cupat_image png = {0}, ppm = {0};
    int have_png = HAVE_PNG && cupat_image_read(NULL, DATA("astronaut.png"), &png) == CUPAT_SUCCESS;
    int have_ppm = cupat_image_read(NULL, DATA("astronaut.ppm"), &ppm) == CUPAT_SUCCESS;
    enum { N = 4 };
    reader r[N];
    pthread_t tid[N];
    int started[N] = {0};
    for (int i = 0; i < N; i++) {
        r[i] = (reader){{have_png ? &png : NULL, have_ppm ? &ppm : NULL}, 0};
        started[i] = pthread_create(&tid[i], NULL, reader_main, &r[i]) == 0;
        CHECK(started[i], "pthread_create");
    }
    for (int i = 0; i < N; i++) {
        if (!started[i]) continue;
        pthread_join(tid[i], NULL);
        CHECK(r[i].bad == 0, "thread %d: %d reads went wrong", i, r[i].bad);
    }
    cupat_image_free(&png);
    cupat_image_free(&ppm);
}

/* -------------------------------------------- gray and blur, on images -- */
static uint8_t gray_ref(const uint8_t *p)
{
    /* cupat.h: (uint8)(0.21 r + 0.71 g + 0.07 b) in f32, left to right, no
     * contraction (this file is compiled with -ffp-contract=off). */
    float f = 0.21f * (float)p[0] + 0.71f * (float)p[1] + 0.07f * (float)p[2];
    return (uint8_t)f;
}

/* Box blur reference through a summed-area table (exact integer sums). */
static void blur_ref(const cupat_image *img, int r, uint8_t *out)
{
    size_t w = img->width, h = img->height, c = (size_t)img->channels;
    uint64_t *sat = calloc((w + 1) * (h + 1) * c, sizeof *sat);
    if (!sat) return;
#define SAT(x, y, k) sat[((y) * (w + 1) + (x)) * c + (k)]
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            for (size_t k = 0; k < c; k++)
                SAT(x + 1, y + 1, k) = px(img, x, y)[k] + SAT(x, y + 1, k) + SAT(x + 1, y, k) -
                                       SAT(x, y, k);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            size_t x0 = x >= (size_t)r ? x - r : 0, y0 = y >= (size_t)r ? y - r : 0;
            size_t x1 = x + r + 1 < w ? x + r + 1 : w, y1 = y + r + 1 < h ? y + r + 1 : h;
            uint64_t count = (uint64_t)(x1 - x0) * (y1 - y0);
            for (size_t k = 0; k < c; k++) {
                uint64_t s = SAT(x1, y1, k) - SAT(x0, y1, k) - SAT(x1, y0, k) + SAT(x0, y0, k);
                out[(y * w + x) * c + k] = (uint8_t)(s / count);
            }
        }
#undef SAT
    free(sat);
}

/* The rungs of `pattern` that run on this backend, then "default" (NULL). */
static size_t rungs(const char *pattern, const char **names, size_t max)
{
    const cupat_variant_info *list = NULL;
    size_t count = 0, n = 0;
    CHECK_OK(NULL, cupat_variants(pattern, &list, &count));
    for (size_t i = 0; i < count && n + 1 < max; i++)
        if (list[i].backend == t_backend) names[n++] = list[i].name;
    names[n++] = NULL;
    return n;
}

static void first_miss(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            CHECK(0, "%s: byte %zu: got %u, want %u", what, i, got[i], want[i]);
            return;
        }
    t_checks++;
}

static void run_gray(cupat_ctx *ctx, const cupat_image *img, const char *name)
{
    size_t w = img->width, h = img->height, npx = w * h;
    uint8_t *rgb = malloc(npx * 3), *want = malloc(npx), *got = malloc(npx);
    if (!rgb || !want || !got) goto out;
    for (size_t i = 0; i < npx; i++) /* RGBA inputs: the RGB part */
        memcpy(rgb + 3 * i, img->data + i * (size_t)img->channels, 3);
    for (size_t i = 0; i < npx; i++) want[i] = gray_ref(rgb + 3 * i);
    uint8_t *d_rgb = test_upload(ctx, rgb, npx * 3), *d_gray = test_upload(ctx, NULL, npx);
    const char *names[32];
    size_t n = rungs("gray", names, 32);
    for (size_t v = 0; v < n && d_rgb && d_gray; v++) {
        char what[128];
        snprintf(what, sizeof what, "gray %s, rung %s", name, names[v] ? names[v] : "default");
        CHECK_OK(ctx, cupat_set_variant(ctx, "gray", names[v]));
        test_poison(ctx, d_gray, npx);
        CHECK_OK(ctx, cupat_rgb_to_gray(ctx, w, h, d_rgb, 3 * w, d_gray, w));
        test_download(ctx, got, d_gray, npx);
        first_miss(got, want, npx, what);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "gray", NULL));
    cupat_free(ctx, d_rgb);
    cupat_free(ctx, d_gray);
out:
    free(rgb);
    free(want);
    free(got);
}

static void run_blur(cupat_ctx *ctx, const cupat_image *img, const char *name)
{
    size_t bytes = img->width * img->height * (size_t)img->channels;
    uint8_t *want = malloc(bytes), *got = malloc(bytes);
    uint8_t *d_in = test_upload(ctx, img->data, bytes), *d_out = test_upload(ctx, NULL, bytes);
    const char *names[32];
    size_t n = rungs("blur", names, 32);
    static const int radii[] = {0, 1, 2, 5, 64};
    for (size_t r = 0; r < sizeof radii / sizeof radii[0] && want && got && d_in && d_out; r++) {
        blur_ref(img, radii[r], want);
        for (size_t v = 0; v < n; v++) {
            char what[128];
            snprintf(what, sizeof what, "blur %s r=%d, rung %s", name, radii[r],
                     names[v] ? names[v] : "default");
            CHECK_OK(ctx, cupat_set_variant(ctx, "blur", names[v]));
            test_poison(ctx, d_out, bytes);
            CHECK_OK(ctx, cupat_blur(ctx, img->width, img->height, img->channels, radii[r],
                                     d_in, d_out));
            test_download(ctx, got, d_out, bytes);
            first_miss(got, want, bytes, what);
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "blur", NULL));
    cupat_free(ctx, d_in);
    cupat_free(ctx, d_out);
    free(want);
    free(got);
}

static void test_kernels(cupat_ctx *ctx)
{
    static const struct {
        const char *name;
        size_t w, h;
        int c;
    } images[] = {
        {"astronaut.png", 121, 91, 3}, {"astronaut.ppm", 121, 91, 3},
        {"camera.png", 97, 67, 1},     {"camera.pgm", 97, 67, 1},
        {"pngtest.png", 91, 69, 4},    {"pngtest.pam", 91, 69, 4},
    };
    int ran_gray = 0, ran_c[5] = {0};
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
        cupat_image img = {0};
        int c = images[i].c;
        if (have_format(images[i].name) && !ran_c[c] &&
            read_data(ctx, images[i].name, &img, images[i].w, images[i].h, c)) {
            if (c >= 3 && !(ran_gray & (1 << c))) run_gray(ctx, &img, images[i].name);
            ran_gray |= 1 << c;
            run_blur(ctx, &img, images[i].name);
            ran_c[c] = 1;
        }
        cupat_image_free(&img);
    }
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_seed();
    g_data = getenv("CUPAT_TEST_DATA");
    if (!g_data || !*g_data) {
        fprintf(stderr, "CUPAT_TEST_DATA is not set (the tests/data directory)\n");
        return 1;
    }
    const char *tmpdir = getenv("TMPDIR");
    snprintf(g_tmp, sizeof g_tmp, "%s/cupat_image_XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(g_tmp)) {
        fprintf(stderr, "mkdtemp %s: %s\n", g_tmp, strerror(errno));
        return 1;
    }
    printf("formats: PNG %s, PBM/PGM/PPM/PAM yes (cupat's own)\n",
           HAVE_PNG ? "yes" : "no (expects NOT_SUPPORTED)");

    test_arguments(ctx);
    test_valid(ctx);
    test_malformed(ctx);
    test_no_leaks(ctx);
    test_streams(ctx);
    test_roundtrip(ctx);
    test_write_errors(ctx);
    test_threads();
    test_kernels(ctx);

    if (rmdir(g_tmp) != 0) CHECK(0, "scratch %s not empty or gone: %s", g_tmp, strerror(errno));
    return test_finish(ctx);
}
