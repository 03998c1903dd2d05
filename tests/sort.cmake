# SPDX-License-Identifier: Apache-2.0
# sort.cmake — cupat_merge, cupat_sort, cupat_sort_bits, cupat_sort_segmented:
# every rung of the "merge", "sort" and "segsort" ladders against a qsort
# reference with a stability check. CUDA: `test_sort --backend cuda --large`
# adds 2^32 + 7 keys (not run by CTest).
cupat_test(test_sort test_sort.c)
