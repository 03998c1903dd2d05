# SPDX-License-Identifier: Apache-2.0
# histogram.cmake — cupat_histogram_even / _range / _channels: every rung of
# the "histogram" ladder against the rules written out in the test. The GPU
# run's --large case (2^32 + 5 samples) is not registered: run it by hand.
cupat_test(test_histogram test_histogram.c)
# The f32 rule's reference needs exact roundings (no contraction).
target_compile_options(test_histogram PRIVATE -ffp-contract=off)
