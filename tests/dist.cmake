# SPDX-License-Identifier: Apache-2.0
# dist.cmake — cupat_dist.h under mpirun (where CMake found MPI): 2 and 3
# ranks on the CPU backend (the MPI path CI runs), 2 on CUDA (skipped without
# a GPU: the staged transport). OpenMPI refuses root without being told, and
# 3 ranks on a 2-core machine need --oversubscribe.
if(NOT TARGET cupat_dist)
  foreach(t cpu.np2 cpu.np3 cuda.np2)
    cupat_skipped_test(test_dist.${t} "MPI was not found at configure time (Debian: libopenmpi-dev), so libcupat_dist is not built"
                       LABELS dist)
  endforeach()
  return()
endif()
add_executable(test_dist test_dist.c)
target_link_libraries(test_dist PRIVATE cupat_dist m)
target_compile_options(test_dist PRIVATE ${CUPAT_C_WARNINGS})
# src/dist/dist_stencil.h: the serial order of cupat_stencil3d_dist
target_include_directories(test_dist PRIVATE ${PROJECT_SOURCE_DIR}/src)
set(mpi_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMP_NUM_THREADS=1")
foreach(np 2 3)
  add_test(NAME test_dist.cpu.np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:test_dist> --backend cpu ${MPIEXEC_POSTFLAGS})
  set_tests_properties(test_dist.cpu.np${np} PROPERTIES LABELS "cpu;dist" ENVIRONMENT "${mpi_env}" TIMEOUT 300)
endforeach()
add_test(NAME test_dist.cuda.np2
         COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS}
                 $<TARGET_FILE:test_dist> --backend cuda ${MPIEXEC_POSTFLAGS})
set_tests_properties(test_dist.cuda.np2 PROPERTIES LABELS "cuda;dist" ENVIRONMENT "${mpi_env}"
                     SKIP_RETURN_CODE 77 TIMEOUT 300)
