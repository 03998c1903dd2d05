# SPDX-License-Identifier: Apache-2.0
# The docs' citations of past runs resolve (bench/results/README.md).
add_test(NAME docs.results_cited COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs_results.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.results_cited PROPERTIES LABELS docs)
