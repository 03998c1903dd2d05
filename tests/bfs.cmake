# SPDX-License-Identifier: Apache-2.0
# bfs.cmake — graphs and BFS: the handle, the Kronecker generator, every
# rung of the "bfs" ladder, the Graph500 validation, bad arguments.
cupat_test(test_bfs test_bfs.c)
# cupat bfs: a Kronecker graph and files, every root validated; bad files and options.
cupat_cli_test(bfs_help "bfs --help" RC 0 OUT "Usage: cupat bfs" ERR_LINES 0)
cupat_cli_test(bfs_kronecker_cpu "bfs --kronecker 10 --roots 8 --backend cpu" RC 0
               OUT "graph: 1024 vertices, 16384 input edges.*rung openmp_direction_opt on cpu.*time +min .*TEPS +min .*harmonic_mean_TEPS [0-9.e+]+ +\\(8 roots, all valid\\)"
               ERR_LINES 0)
cupat_cli_test(bfs_kronecker_serial "bfs --kronecker 8 --edge-factor 4 --roots 3 --backend cpu --variant serial"
               RC 0 OUT "rung serial on cpu.*\\(3 roots, all valid\\)")
cupat_cli_test(bfs_kronecker_auto "bfs --kronecker 9 --roots 4" RC 0 OUT "\\(4 roots, all valid\\)")
cupat_cli_test(bfs_file "bfs ${PROJECT_SOURCE_DIR}/tests/data/graphs/small.txt --roots 100 --backend cpu"
               RC 0 OUT "graph: 6 vertices, 8 input edges \\(1 self-loops\\).*\\(6 roots, all valid\\)")
cupat_cli_test(bfs_file_mtx "bfs ${PROJECT_SOURCE_DIR}/tests/data/graphs/small.mtx --backend cpu"
               RC 0 OUT "graph: 5 vertices.*all valid")
cupat_cli_test(bfs_file_directed "bfs ${PROJECT_SOURCE_DIR}/tests/data/graphs/small.txt --directed --backend cpu"
               RC 0 OUT "directed.*all valid")
cupat_cli_test(bfs_bad_file "bfs ${PROJECT_SOURCE_DIR}/tests/data/graphs/bad_line3.txt --backend cpu"
               RC 1 ERR "bad_line3.txt, line 3: second vertex id is not a decimal integer" ERR_LINES 1)
cupat_cli_test(bfs_missing_file "bfs /nonexistent/graph.txt --backend cpu" RC 1
               ERR "cannot open /nonexistent/graph.txt" ERR_LINES 1)
cupat_cli_test(bfs_no_input "bfs --roots 4" RC 2 ERR "FILE or --kronecker" ERR_LINES 1)
cupat_cli_test(bfs_both_inputs "bfs g.txt --kronecker 4" RC 2 ERR "one of them" ERR_LINES 1)
cupat_cli_test(bfs_bad_scale "bfs --kronecker 31" RC 2 ERR "--kronecker" ERR_LINES 1)
cupat_cli_test(bfs_bad_roots "bfs --kronecker 8 --roots 0" RC 2 ERR "--roots" ERR_LINES 1)
cupat_cli_test(bfs_bad_variant "bfs --kronecker 8 --backend cpu --variant bogus" RC 2 ERR "bogus" ERR_LINES 1)
cupat_cli_test(bfs_unknown_option "bfs --kronecker 8 --frob" RC 2 ERR "unknown option '--frob'" ERR_LINES 1)
cupat_cli_test(bfs_bench_cpu "bench bfs --backend cpu --n 2^10 --reps 3" RC 0
               OUT "Kronecker scale 10.*serial.*ok.*openmp_queue.*ok.*openmp_direction_opt.*ok")
