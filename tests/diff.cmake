# SPDX-License-Identifier: Apache-2.0
# diff.cmake — the seeded randomized differential test: every rung of sort,
# sort_bits, segsort, merge, scan, the segmented scans, select / partition /
# unique, the histograms, reduce, dot, spmv and bfs against plain references
# in the test. A failure prints the command that replays its case:
#   test_diff --backend cuda --seed S --case K
# GPU, more cases: test_diff --backend cuda --cases 100000 (--seed S).
cupat_test(test_diff test_diff.c)
# The references' float rules (f32 bin arithmetic, Neumaier sums) need
# exact roundings.
target_compile_options(test_diff PRIVATE -ffp-contract=off)
