# SPDX-License-Identifier: Apache-2.0
# scan.cmake — cupat_scan, the segmented scans and stream compaction: every
# rung of the "scan", "segscan" and "select" ladders.
cupat_test(test_scan test_scan.c)
# The float-sum references (long double TwoSum, the left-to-right f32 loop)
# need exact roundings; OpenMP to rerun the CPU rungs at other thread counts.
target_compile_options(test_scan PRIVATE -ffp-contract=off)
target_link_libraries(test_scan PRIVATE OpenMP::OpenMP_C)
# The test checks each result on the host between library calls: spinning
# OpenMP workers (the default wait policy) take the cores from the checks on a
# loaded 2-core CI machine (10 s instead of 5 s here).
set_property(TEST test_scan.cpu APPEND PROPERTY ENVIRONMENT OMP_WAIT_POLICY=passive)
