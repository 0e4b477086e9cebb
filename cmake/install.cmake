# What `cmake --install build --prefix P` puts under P (docs/deploy.md, "Installing"):
#   bin/archpatch
#   share/archpatch/rules/          the shipped rules, their fixtures, caches.yaml, features.yaml
#   share/doc/archpatch/            README.md, docs/*.md, examples/
#   share/man/man1/archpatch.1
#   share/bash-completion/completions/archpatch
# The binary finds share/archpatch from its own location (src/util/data_dir.h), so the tree works
# under any prefix and after being moved; the .deb and the tarball are this tree (cmake/packaging.cmake).
include(GNUInstallDirs)

install(TARGETS archpatch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/rules/ DESTINATION ${CMAKE_INSTALL_DATADIR}/archpatch/rules)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
        USE_SOURCE_PERMISSIONS)
install(FILES ${PROJECT_SOURCE_DIR}/docs/archpatch.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/completion.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME archpatch)
