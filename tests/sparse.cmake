# SPDX-License-Identifier: Apache-2.0
# sparse.cmake — the sparse handle, formats, every "spmv" rung, Matrix Market
# files (round trips, malformed ones), CG. `test_sparse --large` (GPU only,
# about 40 GB of device memory): nnz beyond 2^31 with i64 indices.
cupat_test(test_sparse test_sparse.c)
target_compile_options(test_sparse PRIVATE -ffp-contract=off)
# the format arrays are read back through src/sparse/sparse_internal.h
target_include_directories(test_sparse PRIVATE ${PROJECT_SOURCE_DIR}/src/core ${PROJECT_SOURCE_DIR}/src)

# The CLI: `cupat spmv` / `cupat cg` on a file and on generators, and bad files.
set(_sp ${PROJECT_SOURCE_DIR}/tests/data/sparse)
cupat_cli_test(spmv_file_cpu "spmv ${_sp}/poisson2d_4.mtx --backend cpu --reps 2" RC 0
  OUT "matrix: 16 x 16, 64 nonzeros.*spmv openmp \\(cpu\\).*sum\\(y\\) = 16")
cupat_cli_test(spmv_rmat_cpu "spmv --rmat 4096 --k 8 --backend cpu --variant serial --reps 2 --f64 --i64"
  RC 0 OUT "matrix: 4096 x 4096.*i64/f64.*spmv serial")
cupat_cli_test(spmv_write_cpu "spmv --poisson2d 5 --backend cpu --reps 1 --write ${CMAKE_CURRENT_BINARY_DIR}/p5.mtx"
  RC 0 OUT "25 x 25, 105 nonzeros")
# f32 reaches about 1.4e-5 on 24^2: ask for what it attains
cupat_cli_test(cg_poisson_cpu "cg --poisson2d 24 --backend cpu --rtol 1e-4" RC 0
  OUT "cg \\(Jacobi, spmv openmp, cpu\\): converged after [0-9]+ iterations")
cupat_cli_test(cg_file_history_cpu "cg ${_sp}/poisson2d_4.mtx --backend cpu --history --f64" RC 0
  OUT " 0  1\\.000000e\\+00.*converged")
cupat_cli_test(cg_cap_cpu "cg --poisson2d 24 --backend cpu --max-iter 2" RC 1 OUT "NOT converged after 2")
# f32 cannot reach 1e-5 on a 48^2 Poisson (its floor is near 8e-5): not
# converged, said so, and stopped long before the 10000-iteration cap
cupat_cli_test(cg_f32_floor "cg --poisson2d 48 --rtol 1e-5 --backend cpu" RC 1
  OUT "NOT converged after [1-9][0-9][0-9] iterations.*\n.*stopped falling at .* beyond what f32 attains")
cupat_cli_test(spmv_f32_overflow "spmv ${_sp}/f32_overflow.mtx --backend cpu" RC 1
  ERR "line 4: value \"1e39\" overflows f32" ERR_LINES 1)
cupat_cli_test(spmv_bad_index "spmv ${_sp}/bad_index.mtx --backend cpu" RC 1
  ERR "bad_index.mtx line 4: row index \"4\" is outside 1..3" ERR_LINES 1)
cupat_cli_test(spmv_truncated "spmv ${_sp}/truncated.mtx --backend cpu" RC 1
  ERR "end of file after 2 of the 3 entries" ERR_LINES 1)
cupat_cli_test(spmv_no_banner "spmv ${_sp}/no_banner.mtx --backend cpu" RC 1 ERR "line 1: bad banner" ERR_LINES 1)
cupat_cli_test(cg_nan "cg ${_sp}/nan.mtx --backend cpu" RC 1 ERR "line 3: value \"nan\" is NaN" ERR_LINES 1)
cupat_cli_test(spmv_missing_file "spmv /nonexistent/a.mtx --backend cpu" RC 1 ERR "cannot open" ERR_LINES 1)
cupat_cli_test(spmv_no_matrix "spmv --backend cpu" RC 2 ERR "no matrix" ERR_LINES 1)
cupat_cli_test(spmv_two_matrices "spmv a.mtx --poisson2d 4" RC 2 ERR "give one matrix" ERR_LINES 1)
cupat_cli_test(spmv_banded_no_k "spmv --banded 100 --backend cpu" RC 2 ERR "needs --k" ERR_LINES 1)
cupat_cli_test(spmv_bad_variant "spmv --poisson2d 4 --backend cpu --variant nope" RC 2 ERR "nope" ERR_LINES 1)
cupat_cli_test(spmv_unknown_option "spmv --poisson2d 4 --frobnicate" RC 2 ERR "frobnicate" ERR_LINES 1)
cupat_cli_test(cg_bad_rtol "cg --poisson2d 4 --rtol -1" RC 2 ERR "--rtol" ERR_LINES 1)
cupat_cli_test(cg_not_spd "cg ${_sp}/not_spd.mtx --backend cpu" RC 1 ERR "not SPD: diagonal entry 0" ERR_LINES 1)
cupat_cli_test(spmv_help "spmv --help" RC 0 OUT "Usage: cupat spmv")
cupat_cli_test(cg_help "help cg" RC 0 OUT "Usage: cupat cg")

# A 76-byte file declaring 2147483647 x 2147483647: refused from its size line
# at once (it drove `cupat spmv` to 8.6 GB, --i64 and `cupat bfs` to 17 GB, for
# 30 s before "out of memory"). Run under `ulimit -v 2000000` (2 GB of address
# space), so a reader that sizes arrays from the header fails the test here
# instead of taking the machine's memory.
function(sparse_cli_test_2gb name args rc err)
  if(NOT TARGET cupat_cli)
    cupat_skipped_test(cli.${name} "this build has no cupat command (built without the CUDA toolkit)" LABELS cli)
    return()
  endif()
  add_test(NAME cli.${name}
           COMMAND sh -c "ulimit -v 2000000 && exec \"$@\"" sh
                   ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:cupat_cli> "-DARGS=${args}" -DRC=${rc}
                   "-DERR=${err}" -DERR_LINES=1 -P ${PROJECT_SOURCE_DIR}/tests/cli.cmake)
  set_tests_properties(cli.${name} PROPERTIES LABELS cli TIMEOUT 30)
endfunction()
set(_huge "huge_header.mtx line 2: size 2147483647 x 2147483647, 1 entry: beyond 16777216 rows")
sparse_cli_test_2gb(spmv_huge_header "spmv ${_sp}/huge_header.mtx --backend cpu" 1 "${_huge}")
sparse_cli_test_2gb(spmv_huge_header_i64 "spmv ${_sp}/huge_header.mtx --backend cpu --i64" 1 "${_huge}")
sparse_cli_test_2gb(bfs_huge_header "bfs ${_sp}/huge_header.mtx --backend cpu" 1 "${_huge}")
