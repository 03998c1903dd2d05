# occupancy.cmake — `cupat occupancy` (lab/exec/occupancy.c): the arithmetic
# against the books' worked examples and the toolkit's cuda_occupancy.h (cpu),
# against cudaOccupancyMaxActiveBlocksPerMultiprocessor on test kernels (cuda).
cupat_test(test_occupancy test_occupancy.c test_occupancy_kernels.cu)
target_link_libraries(test_occupancy PRIVATE cupat_lab)
cupat_cli_test(occupancy_help "occupancy --help" RC 0 OUT "Usage: cupat occupancy.*h100" LABELS lab)
cupat_cli_test(occupancy_h100 "occupancy --threads 256 --regs 32 --device h100" RC 0
               OUT "resident: 8 blocks, 64 warps, 2048 threads: occupancy 100.0%.*cliff: 1 more register" LABELS lab)
# PMPP 5.6's worked example on the book's machine: register-limited, 50%
cupat_cli_test(occupancy_pmpp "occupancy --threads 256 --regs 64 --smem 8K --device pmpp" RC 0
               OUT "registers +4 +16384.*<- the limit.*occupancy 50.0%" LABELS lab)
cupat_cli_test(occupancy_examples "occupancy --examples" RC 0
               OUT "M22.*1,638.*hardware rule: 1536 threads.*M38.*differs from the book.*G25" LABELS lab)
cupat_cli_test(occupancy_too_big "occupancy --threads 256 --regs 300 --device h100" RC 0
               OUT "cannot launch: 300 registers a thread is above the device's 255" LABELS lab)
cupat_cli_test(occupancy_no_threads "occupancy --device h100" RC 2 ERR "--threads is required" ERR_LINES 1
               LABELS lab)
cupat_cli_test(occupancy_bad_device "occupancy --threads 32 --device tpu" RC 2
               ERR "neither a device index nor a preset" ERR_LINES 2 LABELS lab)
cupat_cli_test(occupancy_bad_rule "occupancy --threads 32 --device h100 --rule magic" RC 2
               ERR "want book or hardware" ERR_LINES 1 LABELS lab)
