/* SPDX-License-Identifier: Apache-2.0 */
/* output.c — the run's tables as aligned text, JSON (cJSON) and CSV. */
#include "harness.h"
#include "outfile.h" /* FILE replaced only by a complete one */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef CUPAT_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

static const char *bound_name(bench_bound b)
{
    return b == BENCH_BOUND_COPY ? "copy" : b == BENCH_BOUND_READ ? "read" : b == BENCH_BOUND_TENSOR ? "tensor" : "fp32";
}
static const char *kind_name(bench_row_kind k)
{
    switch (k) {
    case BENCH_ROW_RUNG: return "rung";
    case BENCH_ROW_VENDOR: return "vendor";
    case BENCH_ROW_REFERENCE: return "reference";
    case BENCH_ROW_CONFIG: return "config";
    }
    return "?";
}
static const char *verdict_name(bench_verdict v)
{
    switch (v) {
    case BENCH_OK: return "ok";
    case BENCH_FAIL: return "FAIL";
    case BENCH_ERROR: return "ERROR";
    case BENCH_UNCHECKED: return "-";
    }
    return "?";
}

void bench_print_header(const bench_run *run, FILE *f)
{
    const bench_ceilings *c = &run->ceil;
    fprintf(f, "cupat bench  device: %s  backend: %s  date: %s  commit: %s  cupat %s\n",
            run->device, cupat_backend_name(run->backend), run->date, run->commit,
            cupat_version());
    fprintf(f,
            "ceilings measured now (%.0f MiB buffers, %s): copy %.1f GB/s, read %.1f GB/s, "
            "fp32 %.0f GFLOP/s",
            (double)c->copy_bytes / (1 << 20), c->method ? c->method : "?", c->copy_gbs,
            c->read_gbs, c->fp32_gflops);
    if (c->tc_bf16_gflops > 0)
        fprintf(f, ", tensor f16 %.0f / bf16 %.0f GFLOP/s", c->tc_f16_gflops, c->tc_bf16_gflops);
    fputc('\n', f);
}

/* "1.23 GB" / "456.7 MB": the model sizes in the table heading. */
static void fmt_amount(char *buf, size_t len, double v, const char *unit)
{
    if (v >= 1e9) snprintf(buf, len, "%.3g G%s", v / 1e9, unit);
    else if (v >= 1e6) snprintf(buf, len, "%.3g M%s", v / 1e6, unit);
    else snprintf(buf, len, "%.3g k%s", v / 1e3, unit);
}

static void cell(FILE *f, int width, const char *fmt, double v, int present)
{
    char b[32];
    if (present) snprintf(b, sizeof b, fmt, v);
    else snprintf(b, sizeof b, "-");
    fprintf(f, " %*s", width, b);
}

/* --ncu's columns: a table has them when a row of it was profiled. */
static int has_ncu(const bench_table *t)
{
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].ncu.state != BENCH_NCU_NONE) return 1;
    return 0;
}

static void ncu_heading(FILE *f)
{
    fprintf(f, " %9s %7s %4s %8s %4s %6s %5s %7s %-8s", "DRAM MB", "x model", "regs",
            "smem KiB", "thr", "theo %", "occ %", "issue %", "limiter");
}

static void ncu_cells(FILE *f, const bench_table *t, const bench_row *r)
{
    const bench_ncu *n = &r->ncu;
    int ok = n->state == BENCH_NCU_OK;
    double bytes = n->dram_read_bytes + n->dram_write_bytes;
    cell(f, 9, "%.1f", bytes / 1e6, ok);
    cell(f, 6, "%.2f", t->bytes > 0 ? bytes / t->bytes : 0, ok && t->bytes > 0);
    fprintf(f, "%s", ok && t->bytes > 0 ? "x" : " ");
    cell(f, 4, "%.0f", n->regs_per_thread, ok);
    cell(f, 8, "%.1f", n->smem_per_block / 1024, ok);
    cell(f, 4, "%.0f", n->threads_per_block, ok);
    cell(f, 6, "%.0f", n->theo_occupancy_pct, ok);
    cell(f, 5, "%.0f", n->occupancy_pct, ok);
    cell(f, 7, "%.0f", n->issue_pct, ok);
    fprintf(f, " %-8s", ok ? n->limiter : n->state == BENCH_NCU_ERROR ? "error" : "-");
}

void bench_print_table(const bench_run *run, const bench_table *t, FILE *f)
{
    (void)run;
    char by[32], fl[32], pct[16];
    fmt_amount(by, sizeof by, t->bytes, "B");
    snprintf(pct, sizeof pct, "%%%s", bound_name(t->bound));
    fprintf(f, "\n%s  %s  (", t->title, t->label);
    if (t->flops > 0) {
        fmt_amount(fl, sizeof fl, t->flops, "FLOP");
        fprintf(f, "%s, %s", by, fl);
    } else {
        fprintf(f, "%s", by);
    }
    fprintf(f, " a call; %% of the %s ceiling)\n", bound_name(t->bound));

    int nw = 4, ncu = has_ncu(t);
    for (size_t i = 0; i < t->nrows; i++) {
        int l = (int)strlen(t->rows[i].name);
        if (l > nw) nw = l;
    }
    if (t->sweep) {
        fprintf(f, "  %-*s %-13s %10s %9s %7s %9s %7s %8s", nw, "block", "grid", "median ms",
                "GB/s", pct, "occupancy", "x best", "book ms");
        if (ncu) ncu_heading(f);
        fprintf(f, "  %s\n", "check");
        for (size_t i = 0; i < t->nrows; i++) {
            const bench_row *r = &t->rows[i];
            char grid[32];
            int timed = r->ms > 0;
            snprintf(grid, sizeof grid, "(%zu,%zu)", r->gx, r->gy);
            fprintf(f, "  %-*s %-13s", nw, r->name, grid);
            cell(f, 10, "%.4f", r->ms, timed);
            cell(f, 9, "%.1f", r->gbs, timed);
            cell(f, 6, "%.1f", r->pct, timed);
            fprintf(f, "%s", timed ? "%" : " ");
            cell(f, 9, "%.2f", r->occupancy, r->occupancy >= 0);
            cell(f, 6, "%.2f", r->x_best, timed && r->x_best > 0);
            fprintf(f, "%s", timed && r->x_best > 0 ? "x" : " ");
            cell(f, 8, "%.0f", r->book_ms, r->book_ms > 0);
            if (ncu) ncu_cells(f, t, r);
            fprintf(f, "  %s\n", verdict_name(r->verdict));
        }
    } else {
        fprintf(f, "  %-*s %10s %10s %10s %5s %9s %9s %7s %8s %9s", nw, "rung", "median ms",
                "min ms", "max ms", "reps", "GB/s", "GFLOP/s", pct, "vs prev", "vs vendor");
        if (ncu) ncu_heading(f);
        fprintf(f, "  %-5s  %s\n", "check", "technique");
        for (size_t i = 0; i < t->nrows; i++) {
            const bench_row *r = &t->rows[i];
            int timed = r->ms > 0;
            fprintf(f, "  %-*s", nw, r->name);
            cell(f, 10, "%.4f", r->ms, timed);
            cell(f, 10, "%.4f", r->ms_min, timed);
            cell(f, 10, "%.4f", r->ms_max, timed);
            cell(f, 5, "%.0f", r->reps, timed);
            cell(f, 9, "%.1f", r->gbs, timed);
            cell(f, 9, "%.1f", r->gflops, r->gflops > 0);
            cell(f, 6, "%.1f", r->pct, timed);
            fprintf(f, "%s", timed ? "%" : " ");
            cell(f, 7, "%.2f", r->speedup, r->speedup > 0);
            fprintf(f, "%s", r->speedup > 0 ? "x" : " ");
            cell(f, 8, "%.2f", r->vs_vendor, r->vs_vendor > 0);
            fprintf(f, "%s", r->vs_vendor > 0 ? "x" : " ");
            if (ncu) ncu_cells(f, t, r);
            fprintf(f, "  %-5s  %s", verdict_name(r->verdict), r->technique ? r->technique : "");
            if (r->source) fprintf(f, " [%s]", r->source);
            fprintf(f, "\n");
        }
    }
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].message[0])
            fprintf(f, "  ! %s: %s: %s\n", t->rows[i].name, verdict_name(t->rows[i].verdict),
                    t->rows[i].message);
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].ncu.state == BENCH_NCU_ERROR)
            fprintf(f, "  ! %s: ncu: %s\n", t->rows[i].name, t->rows[i].ncu.error);
    if (t->note) fprintf(f, "  %s\n", t->note);
    if (ncu)
        fprintf(f, "  ncu (one call, its kernels): DRAM MB read + written; x model: that over "
                   "the minimum bytes above; regs (a thread), smem KiB (static + dynamic, a "
                   "block), thr (a block), theo %%: the launch and theoretical occupancy of "
                   "the call's main kernel (its longest); occ %%: achieved occupancy, issue "
                   "%%: issue slots busy (time-weighted); limiter: memory or compute where "
                   "its %% of peak is the larger and >= %.0f, else latency\n",
                BENCH_NCU_BUSY_PCT);
}

/* -------------------------------------------------------------- JSON -- */

#ifdef CUPAT_HAVE_CJSON
static void num(cJSON *o, const char *k, double v, int present)
{
    if (present) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

static cJSON *row_json(const bench_table *t, const bench_row *r)
{
    cJSON *o = cJSON_CreateObject();
    int timed = r->ms > 0;
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddStringToObject(o, "kind", kind_name(r->kind));
    if (r->technique) cJSON_AddStringToObject(o, "technique", r->technique);
    if (r->source) cJSON_AddStringToObject(o, "source", r->source);
    if (r->is_default) cJSON_AddTrueToObject(o, "default");
    cJSON_AddStringToObject(o, "check", verdict_name(r->verdict));
    if (r->message[0]) cJSON_AddStringToObject(o, "message", r->message);
    num(o, "reps", r->reps, timed);
    num(o, "ms_median", r->ms, timed);
    num(o, "ms_min", r->ms_min, timed);
    num(o, "ms_max", r->ms_max, timed);
    num(o, "gbs", r->gbs, timed);
    num(o, "gflops", r->gflops, r->gflops > 0);
    num(o, "pct_ceiling", r->pct, timed);
    num(o, "speedup_prev", r->speedup, r->speedup > 0);
    num(o, "vs_vendor", r->vs_vendor, r->vs_vendor > 0);
    if (t->sweep) {
        cJSON *b = cJSON_AddArrayToObject(o, "block");
        cJSON_AddItemToArray(b, cJSON_CreateNumber(r->bx));
        cJSON_AddItemToArray(b, cJSON_CreateNumber(r->by));
        cJSON *g = cJSON_AddArrayToObject(o, "grid");
        cJSON_AddItemToArray(g, cJSON_CreateNumber((double)r->gx));
        cJSON_AddItemToArray(g, cJSON_CreateNumber((double)r->gy));
        num(o, "occupancy", r->occupancy, r->occupancy >= 0);
        num(o, "x_best", r->x_best, timed && r->x_best > 0);
        num(o, "book_ms", r->book_ms, r->book_ms > 0);
    }
    const bench_ncu *n = &r->ncu;
    if (n->state == BENCH_NCU_OK) {
        cJSON *c = cJSON_AddObjectToObject(o, "ncu");
        double bytes = n->dram_read_bytes + n->dram_write_bytes;
        cJSON_AddNumberToObject(c, "kernels", n->kernels);
        cJSON_AddNumberToObject(c, "dram_read_bytes", n->dram_read_bytes);
        cJSON_AddNumberToObject(c, "dram_write_bytes", n->dram_write_bytes);
        cJSON_AddNumberToObject(c, "gpu_time_ms", n->gpu_ns / 1e6);
        cJSON_AddNumberToObject(c, "achieved_occupancy_pct", n->occupancy_pct);
        cJSON_AddNumberToObject(c, "issue_slot_pct", n->issue_pct);
        cJSON_AddNumberToObject(c, "memory_pct", n->memory_pct);
        cJSON_AddNumberToObject(c, "sm_pct", n->sm_pct);
        cJSON_AddStringToObject(c, "limiter", n->limiter);
        /* the main kernel's launch (the longest of the call's kernels) */
        if (n->main_kernel[0]) cJSON_AddStringToObject(c, "main_kernel", n->main_kernel);
        cJSON_AddNumberToObject(c, "registers_per_thread", n->regs_per_thread);
        cJSON_AddNumberToObject(c, "shared_mem_per_block_bytes", n->smem_per_block);
        cJSON_AddNumberToObject(c, "threads_per_block", n->threads_per_block);
        cJSON_AddNumberToObject(c, "theoretical_occupancy_pct", n->theo_occupancy_pct);
        if (t->bytes > 0) { /* the case's minimum-bytes model */
            cJSON_AddNumberToObject(c, "model_bytes", t->bytes);
            cJSON_AddNumberToObject(c, "measured_over_model", bytes / t->bytes);
        }
    } else if (n->state == BENCH_NCU_ERROR) {
        cJSON *c = cJSON_AddObjectToObject(o, "ncu");
        cJSON_AddStringToObject(c, "error", n->error);
    }
    return o;
}
#endif

cupat_status bench_write_json(const bench_run *run, const char *path, char *err, size_t errlen)
{
#ifndef CUPAT_HAVE_CJSON
    (void)run;
    snprintf(err, errlen, "%s: this build has no JSON support (install libcjson-dev and rebuild)",
             path);
    return CUPAT_ERROR_NOT_SUPPORTED;
#else
    const bench_ceilings *c = &run->ceil;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "tool", "cupat bench");
    cJSON_AddStringToObject(root, "cupat_version", cupat_version());
    cJSON_AddStringToObject(root, "commit", run->commit);
    cJSON_AddStringToObject(root, "date", run->date);
    cJSON_AddStringToObject(root, "device", run->device);
    cJSON_AddStringToObject(root, "backend", cupat_backend_name(run->backend));
    cJSON *ce = cJSON_AddObjectToObject(root, "ceilings");
    cJSON_AddNumberToObject(ce, "copy_gbs", c->copy_gbs);
    cJSON_AddNumberToObject(ce, "read_gbs", c->read_gbs);
    cJSON_AddNumberToObject(ce, "fp32_gflops", c->fp32_gflops);
    cJSON_AddNumberToObject(ce, "tensor_f16_gflops", c->tc_f16_gflops);
    cJSON_AddNumberToObject(ce, "tensor_bf16_gflops", c->tc_bf16_gflops);
    cJSON_AddNumberToObject(ce, "bytes", (double)c->copy_bytes);
    cJSON *tables = cJSON_AddArrayToObject(root, "tables");
    for (size_t i = 0; i < run->ntables; i++) {
        const bench_table *t = &run->tables[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "pattern", t->pattern);
        cJSON_AddStringToObject(o, "title", t->title);
        cJSON_AddStringToObject(o, "case", t->label);
        cJSON_AddStringToObject(o, "kind", t->sweep ? "sweep" : "ladder");
        cJSON_AddNumberToObject(o, "bytes", t->bytes);
        cJSON_AddNumberToObject(o, "flops", t->flops);
        cJSON_AddStringToObject(o, "ceiling", bound_name(t->bound));
        if (t->note) cJSON_AddStringToObject(o, "note", t->note);
        cJSON *rows = cJSON_AddArrayToObject(o, "rows");
        for (size_t k = 0; k < t->nrows; k++) cJSON_AddItemToArray(rows, row_json(t, &t->rows[k]));
        cJSON_AddItemToArray(tables, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory building the JSON", path);
        return CUPAT_ERROR_OUT_OF_MEMORY;
    }
    int ok = out_file_write(path, text, 1) == 0;
    int e = errno;
    cJSON_free(text);
    if (!ok) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(e));
        return CUPAT_ERROR_IO;
    }
    return CUPAT_SUCCESS;
#endif
}

/* --------------------------------------------------------------- CSV -- */

static void csv_text(FILE *f, const char *s)
{
    if (!s) s = "";
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v, int present)
{
    if (present) fprintf(f, ",%.10g", v);
    else fputc(',', f);
}

cupat_status bench_write_csv(const bench_run *run, const char *path, char *err, size_t errlen)
{
    out_file o;
    if (out_file_open(&o, path)) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return CUPAT_ERROR_IO;
    }
    FILE *f = o.f;
    fputs("date,commit,device,backend,pattern,case,row,kind,check,ms_median,ms_min,ms_max,"
          "reps,bytes,flops,gbs,gflops,ceiling,pct_ceiling,speedup_prev,vs_vendor,block_x,"
          "block_y,occupancy,x_best,book_ms,technique,source,message\n",
          f);
    for (size_t i = 0; i < run->ntables; i++) {
        const bench_table *t = &run->tables[i];
        for (size_t k = 0; k < t->nrows; k++) {
            const bench_row *r = &t->rows[k];
            int timed = r->ms > 0;
            const char *text[] = {run->date, run->commit, run->device,
                                  cupat_backend_name(run->backend), t->pattern, t->label,
                                  r->name, kind_name(r->kind), verdict_name(r->verdict)};
            for (size_t j = 0; j < sizeof text / sizeof text[0]; j++) {
                if (j) fputc(',', f);
                csv_text(f, text[j]);
            }
            csv_num(f, r->ms, timed);
            csv_num(f, r->ms_min, timed);
            csv_num(f, r->ms_max, timed);
            csv_num(f, r->reps, timed);
            csv_num(f, t->bytes, 1);
            csv_num(f, t->flops, t->flops > 0);
            csv_num(f, r->gbs, timed);
            csv_num(f, r->gflops, r->gflops > 0);
            fputc(',', f);
            csv_text(f, bound_name(t->bound));
            csv_num(f, r->pct, timed);
            csv_num(f, r->speedup, r->speedup > 0);
            csv_num(f, r->vs_vendor, r->vs_vendor > 0);
            csv_num(f, r->bx, t->sweep);
            csv_num(f, r->by, t->sweep);
            csv_num(f, r->occupancy, r->occupancy >= 0);
            csv_num(f, r->x_best, t->sweep && timed && r->x_best > 0);
            csv_num(f, r->book_ms, r->book_ms > 0);
            const char *tail[] = {r->technique, r->source, r->message};
            for (size_t j = 0; j < 3; j++) {
                fputc(',', f);
                csv_text(f, tail[j]);
            }
            fputc('\n', f);
        }
    }
    if (out_file_commit(&o)) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        return CUPAT_ERROR_IO;
    }
    return CUPAT_SUCCESS;
}
