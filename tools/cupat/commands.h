/* SPDX-License-Identifier: Apache-2.0 */
/* commands.h — the subcommands of the `cupat` lab. Each takes the arguments
 * after its own name (argv[0] is the subcommand) and returns the exit code:
 * 0 success, 1 failure at run time, 2 bad arguments (one-line reason on stderr). */
#ifndef CUPAT_COMMANDS_H
#define CUPAT_COMMANDS_H

#include "cupat.h"

int cmd_info(int argc, char **argv);      /* device query + measured ceilings   */
int cmd_bandwidth(int argc, char **argv); /* host<->device transfer sweep       */
int cmd_bench(int argc, char **argv);     /* ladders: cupat bench PATTERN|all    */
int cmd_image(int argc, char **argv);     /* gray / blur on real image files     */
int cmd_filter(int argc, char **argv);    /* conv2d filters on real image files  */
int cmd_lab(int argc, char **argv);       /* experiments: cupat lab access       */
int cmd_lab_warp(int argc, char **argv);  /* cupat lab warp (argv[0] = "warp")    */
int cmd_lab_atomics(int argc, char **argv); /* cupat lab atomics                 */
int cmd_lab_streams(int argc, char **argv); /* cupat lab streams                 */
int cmd_lab_exec(int argc, char **argv);  /* cupat lab exec (execution model)   */
int cmd_lab_float(int argc, char **argv);   /* cupat lab float                   */
int cmd_lab_errors(int argc, char **argv);  /* cupat lab errors                  */
int cmd_lab_memory(int argc, char **argv);  /* cupat lab memory                  */
int cmd_lab_multi(int argc, char **argv);   /* cupat lab multi (under mpirun)    */
int cmd_lab_cluster(int argc, char **argv); /* cupat lab cluster                 */
int cmd_lab_coop(int argc, char **argv);    /* cupat lab coop                    */
int cmd_lab_async(int argc, char **argv);   /* cupat lab async                   */
int cmd_lab_l2(int argc, char **argv);      /* cupat lab l2                      */
int cmd_hist(int argc, char **argv);      /* histogram of an image file          */
int cmd_occupancy(int argc, char **argv); /* occupancy calculator, book examples  */
int cmd_report(int argc, char **argv);    /* charts of bench JSON (matplotlib)  */
int cmd_bfs(int argc, char **argv);       /* BFS on a graph, Graph500 statistics */
int cmd_spmv(int argc, char **argv);      /* SpMV of a .mtx file or a generator */
int cmd_cg(int argc, char **argv);        /* conjugate gradient on a .mtx file  */

/* Shared option: --backend auto|cpu|cuda (and --device N). Parses and removes
 * nothing; returns 0 and fills *b / *dev, or 2 after printing a reason. */
int cli_parse_backend(const char *value, cupat_backend *b);
/* Create the context for a subcommand; prints a one-line reason on failure. */
cupat_ctx *cli_context(cupat_backend b, int device);

#endif
