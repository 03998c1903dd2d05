# SPDX-License-Identifier: Apache-2.0
# lab_multi.cmake — `cupat lab multi` (lab/multi): the cost model's
# arithmetic (no MPI, no GPU), the command's arguments, and the whole lab
# under `mpirun -np 2 ... --quick`: on the CPU backend (tiny sizes, the "mpi"
# transport; CI) and on CUDA (skipped, 77, without a GPU), each checked by
# lab_multi_test.sh: exit 0, the all-reduce sums, the stencil's slabs and the
# sort PASS, and the JSON's experiments and rows (python3 where found).
set(CUPAT_TEST_BACKENDS cpu)
cupat_test(test_lab_multi_model test_lab_multi_model.c ${PROJECT_SOURCE_DIR}/lab/multi/multi_model.c)
unset(CUPAT_TEST_BACKENDS)
target_include_directories(test_lab_multi_model PRIVATE ${PROJECT_SOURCE_DIR}/lab)
cupat_cli_test(lab_multi_help "lab multi --help" RC 0 OUT "mpirun.*link.*allreduce.*stencil.*sort.*model.*--net-gbs"
               LABELS lab)
if(NOT TARGET cupat_lab_multi)
  cupat_cli_test(lab_multi_no_mpi "lab multi" RC 1 ERR "built without MPI" ERR_LINES 1 LABELS lab)
  foreach(backend cpu cuda)
    cupat_skipped_test(lab_multi.${backend}.np2 "MPI was not found at configure time (Debian: libopenmpi-dev), so cupat lab multi is built without it"
                       LABELS "${backend};dist;lab")
  endforeach()
  return()
endif()
cupat_cli_test(lab_multi_unknown "lab multi bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_multi_bad_transport "lab multi --transport tcp" RC 2 ERR "--transport 'tcp'" ERR_LINES 1
               LABELS lab)
cupat_cli_test(lab_multi_bad_net "lab multi --net-gbs 0" RC 2 ERR "--net-gbs" ERR_LINES 1 LABELS lab)
# OpenMPI refuses root without being told; OMP_NUM_THREADS=1: two ranks on CI's two cores.
set(mpi_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMP_NUM_THREADS=1")
find_program(CUPAT_LAB_MULTI_PYTHON NAMES python3)
if(NOT CUPAT_LAB_MULTI_PYTHON)
  set(CUPAT_LAB_MULTI_PYTHON "")
endif()
foreach(backend cpu cuda)
  set(json ${CMAKE_CURRENT_BINARY_DIR}/lab_multi_${backend}.json)
  add_test(NAME lab_multi.${backend}.np2
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/lab_multi_test.sh ${backend} ${json} "${CUPAT_LAB_MULTI_PYTHON}" --
                   ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:cupat_cli>
                   lab multi --quick --backend ${backend} --json ${json} ${MPIEXEC_POSTFLAGS})
  set_tests_properties(lab_multi.${backend}.np2 PROPERTIES LABELS "${backend};dist;lab" ENVIRONMENT "${mpi_env}"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
