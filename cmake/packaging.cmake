# CPack: the .deb for Debian 12 and the relocatable tarball, both made from the install tree of
# cmake/install.cmake; scripts/package.sh runs them and checks the results (docs/deploy.md).
set(CPACK_PACKAGE_NAME archpatch)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "patch GPU Python packages to run on architectures their authors gated out")
set(CPACK_PACKAGE_CONTACT "archpatch developers <archpatch@localhost>")
set(CPACK_STRIP_FILES ON)  # debug info stays in the build tree
set(CPACK_PACKAGE_FILE_NAME archpatch-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR})

# .deb: installs under /usr; Depends computed by dpkg-shlibdeps from what the binary links, and
# the packages of the libraries it opens: libclang's when it first parses (src/cuda/libclang.h),
# libcrypto's at its first digest (src/env/libcrypto.h).
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libclang1-19, libssl3")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "archpatch audits and rewrites the architecture gates of GPU Python packages (FlashInfer,\n\
SGLang, vLLM, CUTLASS kernels) from YAML rules, atomically and reversibly.")

# Tarball: one top-level folder archpatch-VERSION-linux-ARCH/ with bin/, lib/, share/; the
# pre-build script bundles every library but glibc's into lib/ and sets the RUNPATHs. gzip, not
# xz: xz made it 30% smaller and ten times slower to build (230 MB unpacked, mostly libLLVM),
# and every serving image can unpack gzip.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/cpack_generator.cmake)
set(CPACK_ARCHPATCH_BUNDLE_SCRIPT ${PROJECT_SOURCE_DIR}/cmake/bundle_libs.cmake)
set(CPACK_ARCHPATCH_LIBCLANG ${LIBCLANG_REAL})  # opened, not linked: bundle_libs.cmake adds it
set(CPACK_ARCHPATCH_LIBCRYPTO ${LIBCRYPTO_REAL})  # the same
include(CPack)
