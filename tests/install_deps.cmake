# SPDX-License-Identifier: Apache-2.0
# scripts/install-deps and `make build` without a package network (a fake
# apt-get that fails): optional libraries cost a one-line note, required tools
# a clear error (exit 1).
add_test(NAME deps.install_offline
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install_deps_test.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(deps.install_offline PROPERTIES TIMEOUT 120 LABELS deps)
