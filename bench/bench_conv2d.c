/* SPDX-License-Identifier: Apache-2.0 */
/* bench_conv2d.c — the conv2d ladder (PMPP 7, then beyond the book) and the
 * separable ladder (pattern conv2d_sep) against the vendors in the same run,
 * timed the same way (harness.c).
 *
 * conv2d: 7680x4320 f32, one channel, 5x5 and 9x9 random taps, zero border:
 *   cuDNN's fastest forward algorithm for the shape (FP32 FMA math), where
 *   cuDNN was found at configure time. 3840x2160 8-bit RGB, clamp border: box
 *   3x3 and 17x17 (nppiFilterBox_8u_C3R_Ctx) and NPP's 5x5 Gaussian
 *   (nppiFilterGauss_8u_C3R_Ctx, the same 5x5 weights / 571), where NPP's
 *   filtering library was found.
 * conv2d_sep: the same f32 shapes with a row and a column filter (cuDNN on the
 *   product filter) and the RGB boxes as 1/k x 1/k (NPP's box).
 * CPU backend: both images 1280x720. --n WxH (or a count made square): every
 *   table at that size.
 *
 * Byte model: one read and one write of the image (the minimum); flops: 2 x
 * taps x outputs (kw + kh taps for the separable form): % of the copy
 * ceiling, and the table's note gives the roofline (the larger of the memory
 * time and the FP32 FMA time). Checks: every rung bit for bit against a host
 * reference written from docs/conv2d.md's rules (the whole image, computed
 * once a table); vendor rows within 2^-12 sum |k| (f32: cuDNN does not
 * promise the chain's rounding) or 1 (u8: NPP's own rounding, and only the
 * interior its non-border filters write). */
#include "harness.h"

#include "conv2d/conv2d_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int bench_cudnn_setup(int width, int height, int kw, int kh, const float *k_dev, cupat_stream s,
                      void **handle, char *name, size_t name_len);
int bench_cudnn_run(void *handle, const float *in, float *out);
void bench_cudnn_free(void *handle);
int bench_npp_filter_rgb(int gauss5, const uint8_t *in, int width, int height, int ksize,
                         uint8_t *out, cupat_stream s);
const char *bench_roofline_note(const bench_run *run, double bytes, double flops);

enum { SEED_IMG = 81, SEED_K = 82 };
enum { V_NONE, V_CUDNN, V_NPP_BOX, V_NPP_GAUSS };

typedef struct cv_state {
    int sep;
    cupat_pixel_type type;
    size_t w, h;
    int C, kw, kh, vendor;
    float k[CUPAT_CONV2D_MAX_K * CUPAT_CONV2D_MAX_K], row[CUPAT_CONV2D_MAX_K],
        col[CUPAT_CONV2D_MAX_K];
    cupat_border border;
    void *in, *out; /* backend */
    float *kdev;     /* cuDNN's filter */
    void *cudnn;
    unsigned char *hin, *href; /* host: the input and the expected output */
    double vendor_tol;
} cv_state;

static int gpu(const bench_run *run) { return run->backend == CUPAT_BACKEND_CUDA; }
static size_t samples(const cv_state *st) { return st->w * st->h * (size_t)st->C; }
static size_t esize(const cv_state *st) { return st->type == CUPAT_PIXEL_F32 ? 4 : 1; }

/* The roofline of a table as its note (static storage: tables outlive the
 * case). Shared with bench_stencil3d.c. */
const char *bench_roofline_note(const bench_run *run, double bytes, double flops)
{
    static char notes[64][200];
    static unsigned next;
    char *n = notes[next++ % 64];
    double mem = run->ceil.copy_gbs > 0 ? bytes / (run->ceil.copy_gbs * 1e6) : 0;
    double fma = run->ceil.fp32_gflops > 0 ? flops / (run->ceil.fp32_gflops * 1e6) : 0;
    double roof = mem > fma ? mem : fma;
    snprintf(n, 200,
             "roofline %.4g ms = max(memory %.4g ms at the copy rate, FP32 FMA %.4g ms); a "
             "row's x roofline = %.4g / its ms",
             roof, mem, fma, roof);
    return n;
}

/* One input sample (x, y) after the border rule, channel c; 0 outside under ZERO. */
static float in_at(const cv_state *st, long long x, long long y, int c)
{
    long long xx = conv_map(x, (long long)st->w, st->border),
              yy = conv_map(y, (long long)st->h, st->border);
    if (xx < 0 || yy < 0) return 0.0f;
    size_t i = ((size_t)yy * st->w + (size_t)xx) * (size_t)st->C + (size_t)c;
    return st->type == CUPAT_PIXEL_F32 ? ((const float *)st->hin)[i] : (float)st->hin[i];
}

/* docs/conv2d.md's chains, one output sample. */
static float out_at(const cv_state *st, long long x, long long y, int c)
{
    const long long rx = st->kw / 2, ry = st->kh / 2;
    float acc = 0.0f;
    for (int i = 0; i < st->kh; i++) {
        if (!st->sep) {
            for (int j = 0; j < st->kw; j++)
                acc = fmaf(st->k[i * st->kw + j], in_at(st, x + j - rx, y + i - ry, c), acc);
            continue;
        }
        float t = 0.0f; /* a row outside under ZERO is a row of zeros: in_at gives 0 */
        for (int j = 0; j < st->kw; j++) t = fmaf(st->row[j], in_at(st, x + j - rx, y + i - ry, c), t);
        acc = fmaf(st->col[i], t, acc);
    }
    return acc;
}

static void reference(cv_state *st)
{
    const size_t n = samples(st);
    if (st->type == CUPAT_PIXEL_F32)
        for (size_t i = 0; i < n; i++) ((float *)st->hin)[i] = bench_rand_f32(SEED_IMG, i, -1.0f, 2.0f);
    else
        for (size_t i = 0; i < n; i++) st->hin[i] = bench_rand_u8(SEED_IMG, i);
#pragma omp parallel for schedule(dynamic, 4)
    for (long long y = 0; y < (long long)st->h; y++)
        for (long long x = 0; x < (long long)st->w; x++)
            for (int c = 0; c < st->C; c++) {
                float v = out_at(st, x, y, c);
                size_t i = ((size_t)y * st->w + (size_t)x) * (size_t)st->C + (size_t)c;
                if (st->type == CUPAT_PIXEL_F32) ((float *)st->href)[i] = v;
                else st->href[i] = conv_u8(v);
            }
}

static cupat_status cv_poison(bench_run *run, void *p)
{
    cv_state *st = p; /* f32: NaN; u8: 0xA5 */
    return cupat_memset(run->ctx, st->out, st->type == CUPAT_PIXEL_F32 ? 0xFF : 0xA5,
                        samples(st) * esize(st));
}

static cupat_status cv_run(bench_run *run, void *p)
{
    cv_state *st = p;
    size_t pitch = st->w * (size_t)st->C * esize(st);
    if (st->sep)
        return cupat_conv2d_separable(run->ctx, st->type, st->w, st->h, st->C, st->in, pitch,
                                      st->out, pitch, st->kw, st->row, st->kh, st->col,
                                      st->border);
    return cupat_conv2d(run->ctx, st->type, st->w, st->h, st->C, st->in, pitch, st->out, pitch,
                        st->kw, st->kh, st->k, st->border);
}

static cupat_status cv_vendor(bench_run *run, void *p)
{
    cv_state *st = p;
    if (st->vendor == V_CUDNN)
        return bench_cuda_status(run, bench_cudnn_run(st->cudnn, st->in, st->out), "cuDNN");
    return bench_cuda_status(run,
                             bench_npp_filter_rgb(st->vendor == V_NPP_GAUSS, st->in, (int)st->w,
                                                  (int)st->h, st->kw, st->out,
                                                  cupat_get_stream(run->ctx)),
                             "NPP filter");
}

static void cv_expect_f32(void *p, size_t start, size_t len, double *e, double *tol)
{
    const cv_state *st = p;
    for (size_t k = 0; k < len; k++) {
        e[k] = ((const float *)st->href)[start + k];
        tol[k] = st->vendor_tol;
    }
}
static void cv_expect_u8(void *p, size_t start, size_t len, uint8_t *e)
{
    const cv_state *st = p;
    memcpy(e, st->href + start, len);
}

/* NPP: the interior its non-border filters write, within 1. */
static cupat_status check_npp(bench_run *run, cv_state *st, bench_check *chk)
{
    size_t n = samples(st), r = (size_t)st->kw / 2, W = st->w * 3;
    uint8_t *h = malloc(n);
    if (!h) return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    cupat_status s = cupat_memcpy(run->ctx, h, st->out, n);
    if (!s) s = cupat_sync(run->ctx);
    for (size_t y = r; !s && y + r < st->h; y++)
        for (size_t i = y * W + 3 * r; i < y * W + W - 3 * r; i++) {
            chk->checked++;
            if (abs((int)h[i] - (int)st->href[i]) > 1 && chk->wrong++ == 0)
                snprintf(chk->msg, sizeof chk->msg, "pixel (%zu, %zu) channel %zu = %u, want %u +- 1",
                         (i % W) / 3, y, i % 3, h[i], st->href[i]);
        }
    free(h);
    return s;
}

static cupat_status cv_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    cv_state *st = p;
    if (st->type == CUPAT_PIXEL_U8) {
        if (!strict) return check_npp(run, st, chk);
        return bench_verify_u8(run, st->out, samples(st), st->w * (size_t)st->C, cv_expect_u8, st, chk);
    }
    double sum = 0;
    for (int i = 0; i < st->kw * st->kh; i++) sum += fabs(st->k[i]);
    st->vendor_tol = strict ? 0 : sum * 0x1p-12; /* |x| < 1 */
    return bench_verify_f32(run, st->out, samples(st), st->w * (size_t)st->C, cv_expect_f32, st, chk);
}

/* The RGB cases: box 3, box 17, NPP's 5x5 Gaussian. */
static const float npp_gauss5[25] = {2, 7, 12, 7, 2, 7, 31, 52, 31, 7, 12, 52, 127,
                                     52, 12, 7, 31, 52, 31, 7, 2, 7, 12, 7, 2};

static cupat_status one_table(bench_run *run, cv_state *st, const char *pattern)
{
    char label[128];
    bench_case c = {0};
    st->vendor_tol = 0;
    if (st->sep) /* the full filter the vendor runs, and the check's tolerance */
        for (int i = 0; i < st->kh; i++)
            for (int j = 0; j < st->kw; j++) st->k[i * st->kw + j] = st->col[i] * st->row[j];
    reference(st);
    const char *what = st->type == CUPAT_PIXEL_F32 ? "f32 1 channel"
                       : st->vendor == V_NPP_GAUSS ? "u8 RGB Gaussian (NPP's weights)"
                                                   : "u8 RGB box";
    snprintf(label, sizeof label, "%zux%zu %s %dx%d, %s border", st->w, st->h, what, st->kw,
             st->kh, st->border == CUPAT_BORDER_ZERO ? "zero" : "clamp");
    c.pattern = pattern;
    memcpy(c.label, label, sizeof label);
    c.bytes = 2.0 * (double)samples(st) * (double)esize(st);
    c.flops = 2.0 * (st->sep ? st->kw + st->kh : st->kw * st->kh) * (double)samples(st);
    c.bound = BENCH_BOUND_COPY;
    c.state = st;
    c.prepare = cv_poison;
    c.run = cv_run;
    c.check = cv_check;
    c.memcpy_ref = 1;
    c.note = bench_roofline_note(run, c.bytes, c.flops);
    char vname[64] = "";
    cupat_status s = CUPAT_SUCCESS;
    if (gpu(run) && st->vendor == V_CUDNN) {
        s = cupat_memcpy(run->ctx, st->kdev, st->k, (size_t)(st->kw * st->kh) * sizeof(float));
        if (!s && st->w <= 1u << 30 && st->h <= 1u << 30 &&
            bench_cudnn_setup((int)st->w, (int)st->h, st->kw, st->kh, st->kdev,
                              cupat_get_stream(run->ctx), &st->cudnn, vname, sizeof vname) == 0) {
            c.vendor = cv_vendor;
            c.vendor_name = vname;
        }
    } else if (gpu(run) && st->vendor != V_NONE && st->w > (size_t)st->kw && st->h > (size_t)st->kh &&
               st->w <= 1u << 28 && bench_npp_filter_rgb(0, NULL, 0, 0, 0, NULL, NULL) == 0) {
        c.vendor = cv_vendor;
        c.vendor_name = st->vendor == V_NPP_GAUSS ? "nppiFilterGauss_8u_C3R" : "nppiFilterBox_8u_C3R";
    }
    if (!s) s = bench_run_case(run, &c);
    cupat_sync(run->ctx);
    bench_cudnn_free(st->cudnn);
    st->cudnn = NULL;
    return s;
}

static cupat_status cases(bench_run *run, const bench_size *size, int sep)
{
    const char *pattern = sep ? "conv2d_sep" : "conv2d";
    size_t fw = gpu(run) ? 7680 : 1280, fh = gpu(run) ? 4320 : 720;
    size_t cw = gpu(run) ? 3840 : 1280, ch = gpu(run) ? 2160 : 720;
    if (size && size->rows) {
        fw = cw = size->rows;
        fh = ch = size->cols;
    } else if (size && size->n) {
        size_t e = (size_t)sqrt((double)size->n);
        while (e * e > size->n) e--;
        while ((e + 1) * (e + 1) <= size->n) e++;
        fw = fh = cw = ch = e;
    }
    cv_state st;
    memset(&st, 0, sizeof st);
    size_t bytes = fw * fh * 4 > cw * ch * 3 ? fw * fh * 4 : cw * ch * 3;
    cupat_status s = CUPAT_SUCCESS;
    if (bytes == 0) return bench_fail(run, CUPAT_ERROR_INVALID_VALUE, "bench %s: empty image", pattern);
    s = cupat_malloc(run->ctx, &st.in, bytes);
    if (!s) s = cupat_malloc(run->ctx, &st.out, bytes);
    if (!s && gpu(run)) s = cupat_malloc(run->ctx, (void **)&st.kdev, sizeof st.k);
    st.hin = malloc(bytes);
    st.href = malloc(bytes);
    if (!s && (!st.hin || !st.href)) s = bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    st.sep = sep;

    static const int fk[] = {5, 9};
    st.type = CUPAT_PIXEL_F32;
    st.w = fw;
    st.h = fh;
    st.C = 1;
    st.border = CUPAT_BORDER_ZERO;
    st.vendor = V_CUDNN;
    if (!s) s = bench_fill_f32(run, st.in, fw * fh, SEED_IMG, -1.0f, 2.0f);
    for (size_t t = 0; !s && t < 2; t++) {
        st.kw = st.kh = fk[t];
        for (int i = 0; i < fk[t] * fk[t]; i++) st.k[i] = bench_rand_f32(SEED_K, (uint64_t)i, -0.1f, 0.2f);
        for (int i = 0; i < fk[t]; i++) {
            st.row[i] = bench_rand_f32(SEED_K + 1, (uint64_t)i, -0.5f, 1.0f);
            st.col[i] = bench_rand_f32(SEED_K + 2, (uint64_t)i, -0.5f, 1.0f);
        }
        s = one_table(run, &st, pattern);
    }

    st.type = CUPAT_PIXEL_U8;
    st.w = cw;
    st.h = ch;
    st.C = 3;
    st.border = CUPAT_BORDER_CLAMP;
    if (!s) s = bench_fill_u8(run, st.in, cw * ch * 3, SEED_IMG);
    static const int box[] = {3, 17};
    for (size_t t = 0; !s && t < 3; t++) {
        if (t == 2 && sep) break; /* NPP's Gaussian is not separable */
        st.vendor = t == 2 ? V_NPP_GAUSS : V_NPP_BOX;
        st.kw = st.kh = t == 2 ? 5 : box[t];
        for (int i = 0; i < st.kw * st.kh; i++)
            st.k[i] = t == 2 ? npp_gauss5[i] / 571.0f : 1.0f / (float)(st.kw * st.kh);
        for (int i = 0; i < st.kw; i++) st.row[i] = st.col[i] = 1.0f / (float)st.kw;
        s = one_table(run, &st, pattern);
    }
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st.in);
    cupat_free(run->ctx, st.out);
    cupat_free(run->ctx, st.kdev);
    free(st.hin);
    free(st.href);
    return s;
}

cupat_status bench_conv2d_cases(bench_run *run, const bench_size *size)
{
    return cases(run, size, 0);
}

cupat_status bench_conv2d_sep_cases(bench_run *run, const bench_size *size)
{
    return cases(run, size, 1);
}
