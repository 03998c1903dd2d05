/* SPDX-License-Identifier: Apache-2.0 */
/* kernels.c — written by scripts/nocuda-stubs from a CUDA build: the
 * stand-ins of the .cu entry points the C code calls, for the build without
 * the CUDA toolkit (-DCUPAT_CUDA=OFF). Never reached: that build makes no
 * CUDA context. */
#include "bfs/bfs_internal.h"
#include "conv2d/conv2d_internal.h"
#include "elementwise/elementwise.h"
#include "gemm/gemm_internal.h"
#include "histogram/histogram_internal.h"
#include "reduce/reduce_priv.h"
#include "scan/scan_internal.h"
#include "sort/sort_internal.h"
#include "sparse/sparse_internal.h"
#include "stencil1d/stencil1d_internal.h"
#include "stencil3d/stencil3d_internal.h"
#include "transpose/transpose_internal.h"

#include <stddef.h>

cupat_status cupat__bfs_cuda_book(cupat_ctx *ctx, const bfs_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__bfs_cuda_fast(cupat_ctx *ctx, const bfs_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
void cupat__bfs_cuda_free(cupat_graph *g) {}
cupat_status cupat__blur_cuda(cupat_ctx *ctx, int rung, size_t width, size_t height, int channels, int radius, const uint8_t *in, uint8_t *out) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__conv2d_cuda(cupat_ctx *ctx, int rung, const conv2d_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__conv2d_sep_cuda(cupat_ctx *ctx, int rung, const conv2d_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__ew_cuda(cupat_ctx *ctx, int rung, ew_op op, size_t n, float alpha, const float *a, const float *b, float *c) { return CUPAT_ERROR_NOT_SUPPORTED; }
void cupat__gemm_auto_plan(const cupat_ctx *ctx, const cupat_gemm_args *a, int *cfg, int *splitk, int *copies) {}
const cupat_gemm_config cupat__gemm_configs[1];
cupat_status cupat__gemm_cuda_async(cupat_ctx *ctx, int cfg, int splitk, const cupat_gemm_args *a, int copies) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemm_cuda_async_resources(cupat_ctx *ctx, int cfg, cupat_gemm_resources *out) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemm_cuda_auto(cupat_ctx *ctx, const cupat_gemm_args *a) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemm_cuda_resources(cupat_ctx *ctx, int rung, int cfg, cupat_gemm_resources *out) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemm_cuda_rung(cupat_ctx *ctx, int rung, const cupat_gemm_args *a) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemm_cuda_scale(cupat_ctx *ctx, const cupat_gemm_args *a) { return CUPAT_ERROR_NOT_SUPPORTED; }
const int cupat__gemm_nconfigs;
cupat_status cupat__gemm_tc_mma(cupat_ctx *ctx, const cupat_gemm_tc_args *a) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemm_tc_wgmma(cupat_ctx *ctx, const cupat_gemm_tc_args *a) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemm_tc_wmma(cupat_ctx *ctx, const cupat_gemm_tc_args *a) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemm_tc_wmma_tiled(cupat_ctx *ctx, const cupat_gemm_tc_args *a) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__gemv_cuda(cupat_ctx *ctx, int rung, const cupat_gemv_args *a) { return CUPAT_ERROR_NOT_SUPPORTED; }
int cupat__gemv_tall;
int cupat__gemv_u8_rows;
size_t cupat__gemv_wide_n;
cupat_status cupat__gray_cuda(cupat_ctx *ctx, int rung, size_t width, size_t height, const uint8_t *rgb, size_t rgb_pitch, uint8_t *gray, size_t gray_pitch) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__histogram_cuda(cupat_ctx *ctx, const hist_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
int cupat__histogram_fits(const cupat_ctx *ctx, int rung, cupat_hist_sample s, int range, unsigned total, char *why, size_t len) { static int zero; return zero; }
cupat_status cupat__matadd_2d_cuda(cupat_ctx *ctx, unsigned bx, unsigned by, size_t rows, size_t cols, const float *A, size_t lda, const float *B, size_t ldb, float *C, size_t ldc, double *occupancy) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__matadd_cuda(cupat_ctx *ctx, int rung, size_t rows, size_t cols, const float *A, size_t lda, const float *B, size_t ldb, float *C, size_t ldc) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__merge_cuda(cupat_ctx *ctx, const merge_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__reduce_cuda(cupat_ctx *ctx, const reduce_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
size_t cupat__reduce_depth_cuda(const cupat_ctx *ctx, int dot, int rung, cupat_type t, size_t n) { static size_t zero; return zero; }
reduce_even_cfg cupat__reduce_even_get(void) { static reduce_even_cfg zero; return zero; }
int cupat__reduce_even_set(const reduce_even_cfg *cfg) { static int zero; return zero; }
cupat_status cupat__scan_book_cuda(cupat_ctx *ctx, const scan_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
size_t cupat__scan_book_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n) { static size_t zero; return zero; }
cupat_status cupat__scan_cuda(cupat_ctx *ctx, const scan_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
size_t cupat__scan_depth_cuda(const cupat_ctx *ctx, int rung, cupat_type t, size_t n) { static size_t zero; return zero; }
size_t cupat__segscan_depth_cuda(const cupat_ctx *ctx, int rung, cupat_type t, size_t n) { static size_t zero; return zero; }
cupat_status cupat__segsort_cuda(cupat_ctx *ctx, const sort_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__select_cuda(cupat_ctx *ctx, const select_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sort_book_cuda(cupat_ctx *ctx, const sort_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sort_mergesort_cuda(cupat_ctx *ctx, const sort_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sort_onesweep_cuda(cupat_ctx *ctx, const sort_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_cg_dir_cuda(cupat_ctx *ctx, size_t n, cupat_type vt, const void *z, void *p, const double *s, int first) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_cg_update_cuda(cupat_ctx *ctx, size_t n, cupat_type vt, void *x, void *r, const void *p, const void *q, const void *dinv, void *z, double *s) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_coo_gather_cuda(cupat_ctx *ctx, size_t n, size_t cols, cupat_type itype, cupat_type vtype, const uint64_t *keys, const uint64_t *perm, const uint64_t *heads, const uint64_t *pos, const void *vals, void *orow, void *ocol, void *oval) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_coo_keys_cuda(cupat_ctx *ctx, size_t nnz, cupat_type itype, size_t rows, size_t cols, const void *r, const void *c, uint64_t *keys, uint64_t *perm, uint64_t *bad) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_diag_inv_cuda(cupat_ctx *ctx, const cupat_sparse *A, int jacobi, void *dinv, uint64_t *bad_row) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_dot_cuda(cupat_ctx *ctx, size_t n, cupat_type vt, const void *a, const void *b, double *s, int slot) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_ell_fill_cuda(cupat_ctx *ctx, const cupat_sparse *A, size_t w, size_t ld, void *ecol, void *eval, uint64_t *counts) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_expand_rows_cuda(cupat_ctx *ctx, const cupat_sparse *A, void *coo_row) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_heads_cuda(cupat_ctx *ctx, size_t n, const uint64_t *keys, uint64_t *heads) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_hyb_coo_fill_cuda(cupat_ctx *ctx, const cupat_sparse *A, size_t w, const uint64_t *offs, void *crow, void *ccol, void *cval) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_jds_counts_cuda(cupat_ctx *ctx, size_t rows, size_t nd, const uint64_t *len_sorted, uint64_t *dcount) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_jds_fill_cuda(cupat_ctx *ctx, const cupat_sparse *A, size_t nd, const uint64_t *perm64, const uint64_t *len_sorted, const uint64_t *offs, void *perm, void *jptr, void *jcol, void *jval) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_residual_cuda(cupat_ctx *ctx, const cupat_sparse *A, const void *b, const void *x, void *r, double *s, int slot) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_row_lengths_cuda(cupat_ctx *ctx, const cupat_sparse *A, uint64_t *keys, uint64_t *perm) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_row_ptr_cuda(cupat_ctx *ctx, size_t rows, size_t nnz, cupat_type itype, const void *orow, void *row_ptr) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_scale_cuda(cupat_ctx *ctx, size_t n, cupat_type vt, const void *dinv, const void *r, void *z) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_sell_fill_cuda(cupat_ctx *ctx, const cupat_sparse *A, size_t ns, size_t nslots, const uint64_t *perm64, const uint64_t *len_sorted, const uint64_t *offs, void *perm, void *sptr, void *scol, void *sval) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_sell_slots_cuda(cupat_ctx *ctx, size_t rows, size_t ns, const uint64_t *len_sorted, uint64_t *slots) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_sell_windows_cuda(cupat_ctx *ctx, size_t rows, size_t nwin, uint64_t *offs) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_spmv_cuda(cupat_ctx *ctx, const spmv_req *r) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__sp_stats_cuda(cupat_ctx *ctx, const cupat_sparse *A, sp_stats *st) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__stencil1d_cuda(cupat_ctx *ctx, int rung, size_t n, int radius, const float *coeffs, const float *in, float *out) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__stencil3d_cuda(cupat_ctx *ctx, int rung, const s3_req *r, int steps, cudaStream_t stream, const void *in, void *out) { return CUPAT_ERROR_NOT_SUPPORTED; }
int cupat__stencil3d_pairs(const s3_req *r, const void *a, const void *b) { static int zero; return zero; }
cupat_status cupat__stream_arg_fix_cuda(cupat_ctx *ctx, const cupat_indexed *partials, const cupat_indexed *tmp, size_t chunk_items, cupat_indexed *dst) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__stream_sum_lanes_cuda(cupat_ctx *ctx, void *counts, const void *lanes, size_t total, int nlanes, int is64) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__tc_ceiling(cupat_ctx *ctx, int bf16, double *gflops) { return CUPAT_ERROR_NOT_SUPPORTED; }
cupat_status cupat__transpose_cuda(cupat_ctx *ctx, int rung, size_t rows, size_t cols, size_t elem_size, const void *in, size_t ld_in, void *out, size_t ld_out) { return CUPAT_ERROR_NOT_SUPPORTED; }
