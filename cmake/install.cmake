# SPDX-License-Identifier: Apache-2.0
# Install: header, static and shared libraries, CMake package, pkg-config.
include(CMakePackageConfigHelpers)

install(FILES include/cupat.h include/cupat.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS cupat cupat_static EXPORT cupatTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cupatTargets NAMESPACE cupat:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cupat)

# Beyond one process (include/cupat_dist.h): the static libcupat_dist where
# MPI was found; a program links cupat::cupat_dist and MPI.
set(CUPAT_CONFIG_NEEDS_MPI 0)
if(TARGET cupat_dist)
  install(FILES include/cupat_dist.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(TARGETS cupat_dist EXPORT cupatTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set(CUPAT_CONFIG_NEEDS_MPI 1)
endif()

set(CUPAT_CONFIG_NEEDS_PNG ${PNG_FOUND})
if(CUPAT_CUDA)
  set(CUPAT_CONFIG_CUDA 1)
else()
  set(CUPAT_CONFIG_CUDA 0)
endif()
configure_package_config_file(cmake/cupatConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cupatConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cupat)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cupatConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cupatConfig.cmake ${PROJECT_BINARY_DIR}/cupatConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cupat)

# pkg-config: `pkg-config --cflags --libs cupat` (shared) or `--static`.
if(CUPAT_CUDA)
  set(CUPAT_PC_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart -lgomp -lm")
else()
  set(CUPAT_PC_PRIVATE "-lgomp -lm")
endif()
if(PNG_FOUND)
  string(APPEND CUPAT_PC_PRIVATE " -lpng -lz")
endif()
if(CUPAT_CDP_SOURCES) # the device-linked dynamic-parallelism code calls into it
  string(APPEND CUPAT_PC_PRIVATE " -lcudadevrt")
endif()
if(CUPAT_CUDA)
  string(APPEND CUPAT_PC_PRIVATE " -lstdc++")
endif()
string(APPEND CUPAT_PC_PRIVATE " -ldl -lpthread -lrt")
# The prefix, from the .pc file's own directory: one ".." per component of
# LIBDIR/pkgconfig ("lib/x86_64-linux-gnu" under /usr is three levels deep).
string(REGEX REPLACE "[^/]+" ".." CUPAT_PC_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(cmake/cupat.pc.in ${PROJECT_BINARY_DIR}/cupat.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cupat.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
