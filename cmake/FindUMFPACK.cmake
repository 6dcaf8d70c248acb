# Finds SuiteSparse's UMFPACK (Debian's libsuitesparse-dev ships no CMake package of its own)
# and defines the imported target UMFPACK::UMFPACK; used by the build and by mmtoolsConfig.cmake.
find_path(UMFPACK_INCLUDE_DIR umfpack.h PATH_SUFFIXES suitesparse)
find_library(UMFPACK_LIBRARY umfpack)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(UMFPACK REQUIRED_VARS UMFPACK_LIBRARY UMFPACK_INCLUDE_DIR)
mark_as_advanced(UMFPACK_INCLUDE_DIR UMFPACK_LIBRARY)
if(UMFPACK_FOUND AND NOT TARGET UMFPACK::UMFPACK)
  add_library(UMFPACK::UMFPACK UNKNOWN IMPORTED)
  set_target_properties(UMFPACK::UMFPACK PROPERTIES
    IMPORTED_LOCATION "${UMFPACK_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${UMFPACK_INCLUDE_DIR}")
endif()
