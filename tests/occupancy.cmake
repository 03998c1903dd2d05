# SPDX-License-Identifier: Apache-2.0
# occupancy.cmake — `cupat occupancy` (lab/exec/occupancy.c): the arithmetic
# against the books' worked examples and the toolkit's cuda_occupancy.h (cpu),
# against cudaOccupancyMaxActiveBlocksPerMultiprocessor on test kernels (cuda).
cupat_test(test_occupancy test_occupancy.c test_occupancy_kernels.cu)
target_link_libraries(test_occupancy PRIVATE cupat_lab)
# The table's demangled kernel names: skipped (77, with the reason) where no
# C++ demangler is at hand.
add_test(NAME test_occupancy.names COMMAND test_occupancy --names)
set_tests_properties(test_occupancy.names PROPERTIES SKIP_RETURN_CODE 77 LABELS "cpu;lab")
cupat_cli_test(occupancy_help "occupancy --help" RC 0 OUT "Usage: cupat occupancy.*h100" LABELS lab)
cupat_cli_test(occupancy_h100 "occupancy --threads 256 --regs 32 --device h100" RC 0
               OUT "resident: 8 blocks, 64 warps, 2048 threads: occupancy 100.0%.*cliff: 1 more register" LABELS lab)
# PMPP 5.6's worked example on the book's machine: register-limited, 50%
cupat_cli_test(occupancy_pmpp "occupancy --threads 256 --regs 64 --smem 8K --device pmpp" RC 0
               OUT "registers +4 +16384.*<- the limit.*occupancy 50.0%" LABELS lab)
cupat_cli_test(occupancy_examples "occupancy --examples" RC 0
               OUT "M22.*1,638.*hardware rule: 1536 threads.*M38.*differs from the book.*G25" LABELS lab)
# Within --help's ranges but beyond a preset's own limits: the calculator's answer.
cupat_cli_test(occupancy_too_big "occupancy --threads 256 --regs 200 --device g80" RC 0
               OUT "cannot launch: 200 registers a thread is above the device's 127" LABELS lab)
cupat_cli_test(occupancy_block_too_big "occupancy --threads 768 --device g80" RC 0
               OUT "cannot launch: 768 threads a block is above the device's 512" LABELS lab)
# Beyond --help's ranges (threads 1..1024, registers 0..255): usage errors.
cupat_cli_test(occupancy_threads_1025 "occupancy --threads 1025 --device h100" RC 2
               ERR "--threads '1025' is not an integer in \\[1, 1024\\]" ERR_LINES 1 LABELS lab)
cupat_cli_test(occupancy_regs_256 "occupancy --threads 256 --regs 256 --device h100" RC 2
               ERR "--regs '256' is not an integer in \\[0, 255\\]" ERR_LINES 1 LABELS lab)
cupat_cli_test(occupancy_no_threads "occupancy --device h100" RC 2 ERR "--threads is required" ERR_LINES 1
               LABELS lab)
cupat_cli_test(occupancy_bad_device "occupancy --threads 32 --device tpu" RC 2
               ERR "neither a device index nor a preset" ERR_LINES 2 LABELS lab)
cupat_cli_test(occupancy_bad_rule "occupancy --threads 32 --device h100 --rule magic" RC 2
               ERR "want book or hardware" ERR_LINES 1 LABELS lab)
# The library's kernels (lab/exec/occupancy_library.h): the test walks the
# build's libcupat.so, and checks it found a fatbin container for every
# source file of libcupat that holds kernels (relocatable-device-code files,
# *_cdp.cu, share one container: the device link's).
add_dependencies(test_occupancy cupat)
file(GLOB occ_lib_cu CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/*/*.cu)
list(FILTER occ_lib_cu EXCLUDE REGEX "/src/dist/")
set(occ_lib_sources "")
set(occ_lib_rdc 0)
foreach(f ${occ_lib_cu})
  if(f MATCHES "_cdp\\.cu$")
    set(occ_lib_rdc 1)
    continue()
  endif()
  file(STRINGS ${f} occ_lib_global REGEX "__global__")
  if(occ_lib_global)
    file(RELATIVE_PATH r ${PROJECT_SOURCE_DIR}/src ${f})
    string(APPEND occ_lib_sources " ${r}")
  endif()
endforeach()
target_compile_definitions(test_occupancy PRIVATE CUPAT_SHARED_LIBRARY_FILE="$<TARGET_FILE:cupat>"
                           OCC_LIB_SOURCES="${occ_lib_sources}" OCC_LIB_RDC=${occ_lib_rdc})
cupat_cli_test(occupancy_library_containers "occupancy --library --containers" RC 0
               OUT "libcupat: .*libcupat.*fatbin containers.*bytes  entries" LABELS lab)
cupat_cli_test(occupancy_library_missing "occupancy --library --file /nonexistent/libcupat.so" RC 1
               ERR "cannot open it" ERR_LINES 1 LABELS lab)
cupat_cli_test(occupancy_library_not_elf "occupancy --library --containers --file ${PROJECT_SOURCE_DIR}/README.md"
               RC 1 ERR "not an ELF file" ERR_LINES 1 LABELS lab)
cupat_cli_test(occupancy_containers_alone "occupancy --containers" RC 2 ERR "goes with --library" ERR_LINES 1
               LABELS lab)
