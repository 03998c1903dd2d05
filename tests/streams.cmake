# streams.cmake — out-of-core streaming (src/stream, cupat_set_streaming):
# pinned host data in chunks over several streams, against the unstreamed
# calls, on both backends (the CPU runs the same chunks when a chunk size is
# set). `test_streams --backend cuda --large` (not registered: 32 GiB pinned)
# is the GPU machine's out-of-core measurement.
cupat_test(test_streams test_streams.c)
target_compile_options(test_streams PRIVATE -ffp-contract=off)

# `cupat lab streams` (lab/streams): arguments without a GPU; every
# experiment where a device is present (a failed check exits 1 and fails the
# ANY match), else exit 1 and one line saying why.
cupat_cli_test(lab_streams_help "lab streams --help" RC 0
               OUT "overlap.*falsedep.*nullstream.*priority.*events.*blocking.*graphs.*--connections"
               LABELS lab)
cupat_cli_test(lab_streams_unknown "lab streams bogus" RC 2 ERR "unknown experiment 'bogus'" ERR_LINES 1
               LABELS lab)
cupat_cli_test(lab_streams_bad_streams "lab streams --streams 0" RC 2 ERR "--streams" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_streams_bad_spin "lab streams --spin-ms 0" RC 2 ERR "--spin-ms" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_streams_bad_bytes "lab streams --bytes 4K" RC 2 ERR "1 MiB to 16 GiB" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_streams_connections_other "lab streams overlap --connections 4" RC 2
               ERR "'falsedep' only" ERR_LINES 1 LABELS lab)
cupat_cli_test(lab_streams_all "lab streams --reps 2 --bytes 8M --spin-ms 0.5" RC "0|1"
               ANY "streams lab: every check OK|need a GPU" LABELS lab)
