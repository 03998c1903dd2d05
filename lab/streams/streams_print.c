/* SPDX-License-Identifier: Apache-2.0 */
/* streams_print.c — the streams lab's output: its tables as text (pasteable
 * into docs/streams.md), its timelines as text Gantt charts, and the whole
 * report as JSON (written here, no JSON library needed). */
#include "streams/streams.h"

#include <math.h>
#include <string.h>

static void put_num(FILE *f, int w, double v)
{
    if (isnan(v)) fprintf(f, " %*s", w, "-");
    else if (fabs(v) >= 1e5 || (v != 0 && fabs(v) < 1e-3)) fprintf(f, " %*.4g", w, v);
    else fprintf(f, " %*.4f", w, v);
}

void lab_streams_print_table(FILE *f, const lab_st_table *t)
{
    fprintf(f, "%s\n", t->title);
    /* the note, wrapped at about 100 columns */
    const char *p = t->note;
    while (*p) {
        int len = (int)strlen(p), cut = len;
        if (len > 98) {
            cut = 98;
            while (cut > 40 && p[cut] != ' ') cut--;
        }
        fprintf(f, "  | %.*s\n", cut, p);
        p += cut;
        while (*p == ' ') p++;
    }
    /* columns as wide as their names (at least 12), labels as the longest */
    int lw = 44, w[LAB_ST_COLS];
    for (int i = 0; i < t->nrows; i++)
        if ((int)strlen(t->label[i]) > lw) lw = (int)strlen(t->label[i]);
    for (int c = 0; c < t->ncols; c++) w[c] = strlen(t->cols[c]) > 12 ? (int)strlen(t->cols[c]) : 12;
    fprintf(f, "  %-*s", lw, "");
    for (int c = 0; c < t->ncols; c++) fprintf(f, " %*s", w[c], t->cols[c]);
    fprintf(f, "  %s\n", "verdict");
    for (int i = 0; i < t->nrows; i++) {
        fprintf(f, "  %-*s", lw, t->label[i]);
        for (int c = 0; c < t->ncols; c++) put_num(f, w[c], t->v[i][c]);
        fprintf(f, "  %s\n", t->verdict[i]);
    }
    fprintf(f, "\n");
}

void lab_streams_gantt(FILE *f, const lab_st_timeline *tl, int width)
{
    if (width < 20) width = 20;
    if (width > 400) width = 400;
    double tmax = 0;
    for (int i = 0; i < tl->n; i++)
        if (tl->s[i].t1 > tmax) tmax = tl->s[i].t1;
    fprintf(f, "timeline: %s\n", tl->title);
    if (tl->n == 0 || !(tmax > 0)) {
        fprintf(f, "  (no spans)\n\n");
        return;
    }
    fprintf(f, "  %-14s 0 ms%*s%.3f ms (a column = %.4f ms)\n", "", width - 4, "", tmax, tmax / width);
    char line[404];
    for (int l = 0; l < tl->nlanes; l++) {
        memset(line, ' ', (size_t)width);
        line[width] = '\0';
        int any = 0;
        for (int i = 0; i < tl->n; i++) {
            const lab_st_span *s = &tl->s[i];
            if (s->lane != l) continue;
            any = 1;
            int c0 = (int)floor(s->t0 / tmax * width), c1 = (int)ceil(s->t1 / tmax * width);
            if (c0 < 0) c0 = 0;
            if (c0 >= width) c0 = width - 1;
            if (c1 <= c0) c1 = c0 + 1;
            if (c1 > width) c1 = width;
            for (int c = c0; c < c1; c++) line[c] = line[c] == ' ' || line[c] == s->kind ? s->kind : '#';
        }
        if (any) fprintf(f, "  %-14.14s |%s|\n", tl->lanes[l], line);
    }
    fprintf(f, "  (H host-to-device copy, K kernel, k short kernel, D device-to-host copy, # two at once)\n\n");
}

void lab_streams_print(FILE *f, const lab_st_report *r, int width)
{
    for (int i = 0; i < r->ntables; i++) lab_streams_print_table(f, &r->t[i]);
    for (int i = 0; i < r->ntimelines; i++) lab_streams_gantt(f, &r->tl[i], width);
}

/* ----------------------------------------------------------------- JSON -- */

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.9g", v);
    else fputs("null", f);
}

int lab_streams_json(FILE *f, const lab_st_report *r, const char *const *child, int nchild)
{
    fprintf(f, "{\"lab\": \"streams\", \"failed_checks\": %d,\n \"tables\": [", r->bad);
    for (int i = 0; i < r->ntables; i++) {
        const lab_st_table *t = &r->t[i];
        fprintf(f, "%s\n  {\"title\": ", i ? "," : "");
        jstr(f, t->title);
        fprintf(f, ", \"note\": ");
        jstr(f, t->note);
        fprintf(f, ", \"columns\": [");
        for (int c = 0; c < t->ncols; c++) {
            if (c) fputs(", ", f);
            jstr(f, t->cols[c]);
        }
        fprintf(f, "], \"rows\": [");
        for (int k = 0; k < t->nrows; k++) {
            fprintf(f, "%s\n   {\"label\": ", k ? "," : "");
            jstr(f, t->label[k]);
            fprintf(f, ", \"values\": [");
            for (int c = 0; c < t->ncols; c++) {
                if (c) fputs(", ", f);
                jnum(f, t->v[k][c]);
            }
            fprintf(f, "], \"verdict\": ");
            jstr(f, t->verdict[k]);
            fputc('}', f);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "],\n \"timelines\": [");
    for (int i = 0; i < r->ntimelines; i++) {
        const lab_st_timeline *tl = &r->tl[i];
        fprintf(f, "%s\n  {\"title\": ", i ? "," : "");
        jstr(f, tl->title);
        fprintf(f, ", \"lanes\": [");
        for (int l = 0; l < tl->nlanes; l++) {
            if (l) fputs(", ", f);
            jstr(f, tl->lanes[l]);
        }
        fprintf(f, "], \"spans\": [");
        for (int k = 0; k < tl->n; k++) {
            const lab_st_span *s = &tl->s[k];
            fprintf(f, "%s{\"lane\": %d, \"kind\": \"%c\", \"item\": %d, \"t0_ms\": ", k ? ", " : "", s->lane,
                    s->kind, s->item);
            jnum(f, s->t0);
            fprintf(f, ", \"t1_ms\": ");
            jnum(f, s->t1);
            fputc('}', f);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "],\n \"children\": [");
    for (int i = 0; i < nchild; i++) fprintf(f, "%s\n%s", i ? "," : "", child[i] && *child[i] ? child[i] : "null");
    fprintf(f, "]}\n");
    return ferror(f) ? -1 : 0;
}
