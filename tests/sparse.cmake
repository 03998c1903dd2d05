# sparse.cmake — the sparse handle, formats, every "spmv" rung, Matrix Market
# files (round trips, malformed ones), CG. `test_sparse --large` (GPU only,
# about 40 GB of device memory): nnz beyond 2^31 with i64 indices.
cupat_test(test_sparse test_sparse.c)
target_compile_options(test_sparse PRIVATE -ffp-contract=off)
