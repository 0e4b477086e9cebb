# CPack pre-build script for the relocatable tarball (cmake/cpack_generator.cmake): run in the
# staging tree after the install, it copies every shared library the binary loads, except
# glibc's, into lib/ and sets the RUNPATHs so that the tree runs wherever it is unpacked, on a
# distribution with glibc 2.34 or newer (scripts/package.sh checks the symbol versions):
#   bin/archpatch  RUNPATH $ORIGIN/../lib
#   lib/*.so*      RUNPATH $ORIGIN (a library's own dependencies are looked up through its RUNPATH,
#                  not the executable's)
# libstdc++ is bundled too: RUNPATH reaches archpatch alone, not the nvcc or python it starts, so
# the host's torch keeps its own C++ runtime. libgcc_s is not: Debian 12's needs glibc 2.35's
# _dl_find_object for every exception, and every glibc system has a libgcc_s of its own.
# Debian 12's libstdc++ and libLLVM need GLIBC_2.36 for arc4random alone: that need is made weak
# and lib/libarchpatch-glibc-compat.so (cmake/glibc_compat.c) supplies the functions.
find_program(PATCHELF patchelf REQUIRED)
find_program(PYTHON3 python3 REQUIRED)
find_program(CC NAMES cc gcc REQUIRED)
set(glibc_max 2.34)

set(stage "${CPACK_TEMPORARY_DIRECTORY}")  # the tarball's top-level folder
set(exe "${stage}/bin/archpatch")
if(NOT EXISTS "${exe}")
  message(FATAL_ERROR "bundle_libs: no ${exe} in the staging tree")
endif()

# glibc's own libraries come from the host, whose ld.so must match them; libgcc_s, see above.
set(host_libs "^(ld-linux.*|linux-vdso.*|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|libthread_db|libBrokenLocale|libnss_.*|libgcc_s)\\.so")
# libclang and libcrypto are opened at run time (src/cuda/libclang.h, src/env/libcrypto.h), so
# the executable does not name them: they and what they link come along by name.
file(GET_RUNTIME_DEPENDENCIES
  EXECUTABLES "${exe}"
  LIBRARIES "${CPACK_ARCHPATCH_LIBCLANG}" "${CPACK_ARCHPATCH_LIBCRYPTO}"
  RESOLVED_DEPENDENCIES_VAR libs
  UNRESOLVED_DEPENDENCIES_VAR unresolved
  PRE_EXCLUDE_REGEXES "${host_libs}")
if(unresolved)
  message(FATAL_ERROR "bundle_libs: cannot resolve ${unresolved}")
endif()

list(APPEND libs "${CPACK_ARCHPATCH_LIBCLANG}" "${CPACK_ARCHPATCH_LIBCRYPTO}")
file(MAKE_DIRECTORY "${stage}/lib")
foreach(lib IN LISTS libs)
  get_filename_component(name "${lib}" NAME)  # the SONAME the loader asks for
  file(REAL_PATH "${lib}" real)
  file(COPY_FILE "${real}" "${stage}/lib/${name}")
  file(CHMOD "${stage}/lib/${name}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  execute_process(COMMAND ${PATCHELF} --set-rpath "$ORIGIN" "${stage}/lib/${name}" COMMAND_ERROR_IS_FATAL ANY)
endforeach()
set(compat libarchpatch-glibc-compat.so)
execute_process(COMMAND ${CC} -shared -fPIC -O2 -s -o "${stage}/lib/${compat}" "${CMAKE_CURRENT_LIST_DIR}/glibc_compat.c"
                COMMAND_ERROR_IS_FATAL ANY)
file(GLOB bundled "${stage}/lib/*.so*")
execute_process(COMMAND ${PYTHON3} "${CMAKE_CURRENT_LIST_DIR}/../scripts/elf_weak_versions.py" ${glibc_max} ${bundled} "${exe}"
                COMMAND_ERROR_IS_FATAL ANY)
# Two calls: patchelf 0.14 given both options at once writes the library name as the RUNPATH.
execute_process(COMMAND ${PATCHELF} --add-needed ${compat} "${exe}" COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${PATCHELF} --set-rpath "$ORIGIN/../lib" "${exe}" COMMAND_ERROR_IS_FATAL ANY)
list(LENGTH libs count)
message(STATUS "bundle_libs: ${count} libraries in lib/, RUNPATH set")
