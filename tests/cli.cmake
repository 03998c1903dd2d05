# SPDX-License-Identifier: Apache-2.0
# cli.cmake — tests of the `cupat` command. Two roles in one file:
#  * included by tests/CMakeLists.txt: registers the cli.* tests;
#  * run as `cmake -P cli.cmake` by those tests: runs the binary once and checks
#    exit code, stdout and stderr together (PASS_REGULAR_EXPRESSION alone would
#    ignore the exit code).
# Checker inputs: EXE, ARGS (one string, split like a shell), RC (regex the exit
# code must match), OUT / ERR (regexes stdout / stderr must match), ERR_LINES
# (stderr must have exactly this many lines), ANY (regex stdout+stderr must match).
# Streams: STDIN_PIPE (a file fed to the binary's stdin through a pipe), FIFO
# and FIFO_FROM (a FIFO made at FIFO, fed with the file FIFO_FROM while the
# binary runs), STDOUT_FILE (stdout goes to this file; OUT_HEX, a regex, must
# then match the hex of its first 32 bytes).
# What the run must leave alone (a tool removes only what it made itself):
# KEEP_FILE is made afresh before the run, holding one known line; KEEP_DIR
# is made afresh as an empty folder. After the run each must still be there,
# the file unchanged. READ_ONLY: KEEP_FILE is made read-only, in a folder the
# binary may write (so a tool that removed it could). Root may write a
# read-only file, so as root the binary runs as nobody (setpriv); where it
# cannot, the test prints "SKIP: ..." and is skipped.

if(CMAKE_SCRIPT_MODE_FILE)
  separate_arguments(args UNIX_COMMAND "${ARGS}")
  # A feeder runs beside the binary as the first command of a pipeline.
  set(feed "")
  if(DEFINED STDIN_PIPE)
    set(feed COMMAND cat "${STDIN_PIPE}")
  elseif(DEFINED FIFO)
    file(REMOVE "${FIFO}")
    execute_process(COMMAND mkfifo "${FIFO}" RESULT_VARIABLE r)
    if(NOT r EQUAL 0)
      message(FATAL_ERROR "mkfifo ${FIFO} failed: ${r}")
    endif()
    set(feed COMMAND sh -c "cat \"$1\" > \"$2\"" sh "${FIFO_FROM}" "${FIFO}")
  endif()
  if(DEFINED KEEP_FILE)
    set(keep_text "a file of the user's, not the command's: ${KEEP_FILE}\n")
    file(REMOVE "${KEEP_FILE}") # a read-only one of an earlier run
    file(WRITE "${KEEP_FILE}" "${keep_text}")
    if(READ_ONLY)
      file(CHMOD "${KEEP_FILE}" PERMISSIONS OWNER_READ GROUP_READ WORLD_READ)
      execute_process(COMMAND sh -c "test -w \"$1\"" sh "${KEEP_FILE}" RESULT_VARIABLE writable)
      if(writable EQUAL 0) # root
        find_program(setpriv setpriv)
        set(as_nobody ${setpriv} --reuid=65534 --regid=65534 --clear-groups)
        if(setpriv)
          get_filename_component(keep_dir "${KEEP_FILE}" DIRECTORY)
          file(CHMOD "${keep_dir}" DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
               GROUP_WRITE GROUP_EXECUTE WORLD_READ WORLD_WRITE WORLD_EXECUTE)
          execute_process(COMMAND ${as_nobody} sh -c "test ! -w \"$1\" && \"$2\" --version" sh
                                  "${KEEP_FILE}" "${EXE}" RESULT_VARIABLE r OUTPUT_QUIET ERROR_QUIET)
        endif()
        if(NOT setpriv OR NOT r EQUAL 0)
          message("SKIP: ${KEEP_FILE} is read-only, yet root may write it, and cupat cannot run as nobody here (setpriv)")
          return()
        endif()
        set(run_as ${as_nobody})
      endif()
    endif()
  endif()
  if(DEFINED KEEP_DIR)
    file(REMOVE_RECURSE "${KEEP_DIR}")
    file(MAKE_DIRECTORY "${KEEP_DIR}")
  endif()
  set(stdout_to OUTPUT_VARIABLE out)
  if(DEFINED STDOUT_FILE)
    set(stdout_to OUTPUT_FILE "${STDOUT_FILE}")
    set(out "")
  endif()
  execute_process(${feed} COMMAND ${run_as} "${EXE}" ${args} RESULT_VARIABLE rc ${stdout_to}
                  ERROR_VARIABLE err TIMEOUT 300)
  if(DEFINED FIFO)
    file(REMOVE "${FIFO}")
  endif()
  if(DEFINED OUT_HEX)
    file(READ "${STDOUT_FILE}" head LIMIT 32 HEX)
    if(NOT head MATCHES "${OUT_HEX}")
      message(FATAL_ERROR "${STDOUT_FILE} starts with ${head}, not '${OUT_HEX}'\n"
                          "cupat ${ARGS}: exit ${rc}\n--- stderr:\n${err}---")
    endif()
  endif()
  set(ctx "cupat ${ARGS}: exit ${rc}\n--- stdout:\n${out}--- stderr:\n${err}---")
  if(DEFINED KEEP_FILE)
    if(NOT EXISTS "${KEEP_FILE}")
      message(FATAL_ERROR "the run removed ${KEEP_FILE}, a file it did not make\n${ctx}")
    endif()
    file(READ "${KEEP_FILE}" now)
    if(NOT now STREQUAL keep_text)
      message(FATAL_ERROR "the run changed ${KEEP_FILE}: it holds '${now}'\n${ctx}")
    endif()
  endif()
  if(DEFINED KEEP_DIR AND NOT IS_DIRECTORY "${KEEP_DIR}")
    message(FATAL_ERROR "the run removed the folder ${KEEP_DIR}, which it did not make\n${ctx}")
  endif()
  if(DEFINED RC AND NOT rc MATCHES "^(${RC})$")
    message(FATAL_ERROR "exit code ${rc} does not match ${RC}\n${ctx}")
  endif()
  if(DEFINED OUT AND NOT out MATCHES "${OUT}")
    message(FATAL_ERROR "stdout does not match '${OUT}'\n${ctx}")
  endif()
  if(DEFINED ERR AND NOT err MATCHES "${ERR}")
    message(FATAL_ERROR "stderr does not match '${ERR}'\n${ctx}")
  endif()
  if(DEFINED ANY AND NOT "${out}${err}" MATCHES "${ANY}")
    message(FATAL_ERROR "output does not match '${ANY}'\n${ctx}")
  endif()
  if(DEFINED ERR_LINES)
    string(REGEX MATCHALL "\n" nl "${err}")
    list(LENGTH nl n)
    if(NOT err STREQUAL "" AND NOT err MATCHES "\n$")
      math(EXPR n "${n} + 1")
    endif()
    if(NOT n EQUAL ERR_LINES)
      message(FATAL_ERROR "stderr has ${n} lines, expected ${ERR_LINES}\n${ctx}")
    endif()
  endif()
  return()
endif()

# cupat_cli_test is defined in tests/CMakeLists.txt.

# The frame: help, version, bad commands.
cupat_cli_test(help "--help" RC 0 OUT "Usage: cupat <command>" ERR_LINES 0)
cupat_cli_test(help_word "help" RC 0 OUT "Usage: cupat <command>")
cupat_cli_test(help_command "help info" RC 0 OUT "Usage: cupat info")
cupat_cli_test(version "--version" RC 0 OUT "^cupat [0-9]+\\.[0-9]+\\.[0-9]+\n$")
cupat_cli_test(no_command "" RC 2 ERR "no command.*--help" ERR_LINES 1)
cupat_cli_test(unknown_command "frobnicate" RC 2 ERR "unknown command 'frobnicate'.*--help"
               ERR_LINES 1)
cupat_cli_test(unknown_top_option "--frobnicate" RC 2 ERR "unknown option" ERR_LINES 1)
cupat_cli_test(help_unknown_command "help frobnicate" RC 2 ERR_LINES 1)

# cupat info.
cupat_cli_test(info_help "info --help" RC 0 OUT "Usage: cupat info")
cupat_cli_test(info_cpu "info --backend cpu --no-measure" RC 0
               OUT "info: CPU backend\n.*CUDA device .*\n.*CPU .*logical cores.*memory" ERR_LINES 0)
# issue 18.10: a count under the count's label, the node list beside it
cupat_cli_test(info_cpu_numa "info --backend cpu --no-measure" RC 0
               OUT "NUMA nodes online +([1-9][0-9]* \\(node list: [0-9][-0-9,]*\\)|unknown)\n")
cupat_cli_test(info_cpu_measure "info --backend cpu" RC 0
               OUT "measured ceilings.*copy.*GB/s.*read.*GB/s.*FP32.*GFLOP/s")
cupat_cli_test(info_bad_backend "info --backend bogus" RC 2 ERR "'bogus'" ERR_LINES 1)
cupat_cli_test(info_missing_value "info --backend" RC 2 ERR "needs a value" ERR_LINES 1)
cupat_cli_test(info_bad_device "info --device x" RC 2 ERR "--device" ERR_LINES 1)
cupat_cli_test(info_unknown_option "info --frob" RC 2 ERR "unknown option '--frob'" ERR_LINES 1)
# auto with the ceilings: measured on the GPU where there is one, else the CPU.
cupat_cli_test(info_measure "info" RC 0 OUT "measured ceilings.*copy.*read.*FP32")
# auto: the CUDA report where a device is present, else exactly one line saying
# it falls back to the CPU.
cupat_cli_test(info_auto "info --no-measure" RC 0
               ANY "info: CUDA backend|no CUDA device .*running on the CPU backend")
# cuda asked for: the report, or (no device) exit 1 with a one-line reason.
cupat_cli_test(info_cuda "info --backend cuda --no-measure" RC "0|1"
               ANY "info: CUDA backend|cupat: cupat_create: .*\n$")

# cupat bandwidth: exits 0 either way; one line where no device is present.
cupat_cli_test(bandwidth_help "bandwidth --help" RC 0 OUT "Usage: cupat bandwidth")
cupat_cli_test(bandwidth "bandwidth --sizes small --reps 3" RC 0
               OUT "needs a CUDA device.*nothing measured\n$|pinned.*theory")
cupat_cli_test(bandwidth_bad_size "bandwidth --max 12Q" RC 2 ERR "not a size" ERR_LINES 1)
cupat_cli_test(bandwidth_bad_sizes "bandwidth --sizes huge" RC 2 ERR "small or full" ERR_LINES 1)
cupat_cli_test(bandwidth_unknown_option "bandwidth --frob" RC 2 ERR "unknown option" ERR_LINES 1)
