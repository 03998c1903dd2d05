# SPDX-License-Identifier: Apache-2.0
# bench_scan.cmake — `cupat bench scan|segscan|select` on the CPU backend at
# sizes that are not multiples of the checks' 2^16-element chunks: every row
# checked ok (a FAIL prints a "! rung: FAIL" line and exits 1), the tables
# named. The GPU rows (every CUDA rung and the CUB baselines) run in
# scripts/device-check (PATTERN=scan).
cupat_cli_test(bench_scan_cpu "bench scan --backend cpu --n 300007 --reps 2" RC 0
               OUT "u32 exclusive sum +n=300007.*serial .* ok .*openmp .* ok .*f32 inclusive sum.*i32 inclusive max.*u64 exclusive sum[^!]*$")
cupat_cli_test(bench_segscan_cpu "bench segscan --backend cpu --n 200003 --reps 2" RC 0
               OUT "exclusive sum by u32 key +n=200003.*serial .* ok .*head flags[^!]*$")
cupat_cli_test(bench_select_cpu "bench select --backend cpu --n 200003 --reps 2" RC 0
               OUT "select by flags +n=200003.*openmp .* ok .*select x < 0.*partition by flags.*u32 unique[^!]*$")
cupat_cli_test(bench_scan_list "bench all --list" RC 0
               OUT "scan +decoupled +cuda +default.*segscan +decoupled.*select +scan_scatter")
