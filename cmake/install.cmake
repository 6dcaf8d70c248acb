# What `cmake --install` puts under the prefix: the tools (bin/), the static libraries and their
# headers, the CMake package (find_package(mmtools): mmtools::mm, mmtools::kernels,
# mmtools::analysis), mmtools.pc and the tools' man pages (help2man). Included by CMakeLists.txt.
include(CMakePackageConfigHelpers)

set(MM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mmtools)

# ---- tools and libraries -------------------------------------------------------------------
set_target_properties(mmkernels PROPERTIES EXPORT_NAME kernels)
set_target_properties(mmanalysis PROPERTIES EXPORT_NAME analysis)
# The package's names work inside this build too (e.g. for a project that adds mmtools as a folder).
add_library(mmtools::mm ALIAS mm)
add_library(mmtools::kernels ALIAS mmkernels)
add_library(mmtools::analysis ALIAS mmanalysis)

# A sanitized build's libraries call into the sanitizers' runtimes: a program linking them links
# those too.
if(MM_SANITIZE)
  foreach(lib mm mmkernels mmanalysis)
    target_link_options(${lib} INTERFACE -fsanitize=address,undefined)
  endforeach()
endif()

install(TARGETS ${MM_TOOLS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mm mmkernels mmanalysis EXPORT mmtoolsTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# ---- headers: include/mmtools/{mm,analysis,kernels}/, the source tree's folders -------------
# mm_install_headers(GLOB|GLOB_RECURSE DIR DEST): DIR's *.hpp (DIR relative to the source tree)
# into DEST, subfolders kept. Never the .cuh device headers nor kernels/cpu's internals.
function(mm_install_headers mode dir dest)
  file(${mode} headers RELATIVE ${CMAKE_SOURCE_DIR}/${dir} CONFIGURE_DEPENDS
       ${CMAKE_SOURCE_DIR}/${dir}/*.hpp)
  foreach(h ${headers})
    get_filename_component(sub ${h} DIRECTORY)
    install(FILES ${dir}/${h} DESTINATION ${dest}/${sub})
  endforeach()
endfunction()
set(MM_INSTALL_HEADERS ${CMAKE_INSTALL_INCLUDEDIR}/mmtools)
mm_install_headers(GLOB_RECURSE lib/mm ${MM_INSTALL_HEADERS}/mm)
mm_install_headers(GLOB_RECURSE lib/analysis ${MM_INSTALL_HEADERS}/analysis)
mm_install_headers(GLOB kernels ${MM_INSTALL_HEADERS}/kernels)
if(MM_HAVE_CUDA)
  # The host entry points of the CUDA implementations (kernels/cuda/**/*_cuda.hpp and kin).
  mm_install_headers(GLOB_RECURSE kernels/cuda ${MM_INSTALL_HEADERS}/kernels/cuda)
endif()

# ---- CMake package ---------------------------------------------------------------------------
# libpng comes with `mmcheck spy`: the package finds it when the libraries link it.
set(MM_NEEDS_PNG OFF)
if(TARGET PNG::PNG)
  set(MM_NEEDS_PNG ON)
endif()
install(EXPORT mmtoolsTargets NAMESPACE mmtools:: DESTINATION ${MM_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/mmtoolsConfig.cmake.in
  ${CMAKE_BINARY_DIR}/mmtoolsConfig.cmake INSTALL_DESTINATION ${MM_INSTALL_CMAKEDIR})
# 0.x: a minor release may change the interface.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/mmtoolsConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/mmtoolsConfig.cmake ${CMAKE_BINARY_DIR}/mmtoolsConfigVersion.cmake
              cmake/FindUMFPACK.cmake
        DESTINATION ${MM_INSTALL_CMAKEDIR})

# ---- pkg-config: mmtools.pc, relocatable (prefix found from the file's own place) ------------
# mm_pc_link(VAR LIBRARY): "-L<dir> -l<name>" for a library file, no -L for the linker's own dirs.
function(mm_pc_link var lib)
  get_filename_component(dir ${lib} DIRECTORY)
  get_filename_component(name ${lib} NAME_WE)
  string(REGEX REPLACE "^lib" "" name ${name})
  set(flags "-l${name}")
  if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    set(flags "-L${dir} ${flags}")
  endif()
  set(${var} "${${var}} ${flags}" PARENT_SCOPE)
endfunction()

if(IS_ABSOLUTE ${CMAKE_INSTALL_LIBDIR})
  set(MM_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH rel /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
  string(REGEX REPLACE "/$" "" rel "${rel}")
  set(MM_PC_PREFIX "\${pcfiledir}/${rel}")
endif()
set(MM_PC_REQUIRES_PRIVATE "zlib openblas lapacke")
if(MM_NEEDS_PNG)
  string(APPEND MM_PC_REQUIRES_PRIVATE " libpng")
endif()
set(MM_PC_CFLAGS "")
set(MM_PC_LIBS_PRIVATE "")
get_target_property(boost_po Boost::program_options LOCATION)
mm_pc_link(MM_PC_LIBS_PRIVATE ${boost_po})
mm_pc_link(MM_PC_LIBS_PRIVATE ${UMFPACK_LIBRARY})
string(APPEND MM_PC_LIBS_PRIVATE " ${OpenMP_CXX_FLAGS}")
if(NOT Boost_INCLUDE_DIRS IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  string(APPEND MM_PC_CFLAGS " -I${Boost_INCLUDE_DIRS}")
endif()
if(MM_HAVE_CUDA)
  string(APPEND MM_PC_CFLAGS " -DMM_HAVE_CUDA=1")
  string(APPEND MM_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR}"
         " -lcusparse -lcudart_static -ldl -lrt -lpthread")
endif()
if(MM_SANITIZE)  # as the CMake targets' link options above
  string(APPEND MM_PC_LIBS_PRIVATE " -fsanitize=address,undefined")
endif()
configure_file(cmake/mmtools.pc.in ${CMAKE_BINARY_DIR}/mmtools.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/mmtools.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- man pages: help2man runs each tool's --help and --version -------------------------------
find_program(HELP2MAN_EXECUTABLE help2man)
if(HELP2MAN_EXECUTABLE)
  string(REPLACE ";" "," tool_list "${MM_TOOLS}")
  set(pages "")
  foreach(t ${MM_TOOLS})
    set(page ${CMAKE_BINARY_DIR}/man/man1/${t}.1)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${HELP2MAN_EXECUTABLE} -DTOOL=$<TARGET_FILE:${t}>
              -DTOOLS=${tool_list} -DOUT=${page} -P ${CMAKE_SOURCE_DIR}/cmake/help2man.cmake
      DEPENDS ${t} ${CMAKE_SOURCE_DIR}/cmake/help2man.cmake
      COMMENT "Man page ${t}.1 (help2man)" VERBATIM)
    list(APPEND pages ${page})
  endforeach()
  add_custom_target(man ALL DEPENDS ${pages})
  install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "mmtools: help2man not found, man pages skipped (Debian package help2man)")
endif()
