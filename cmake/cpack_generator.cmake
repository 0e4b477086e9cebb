# Read by CPack once per generator (CPACK_PROJECT_CONFIG_FILE).
if(CPACK_GENERATOR MATCHES "^T")  # TGZ: the relocatable tarball
  set(CPACK_PRE_BUILD_SCRIPTS ${CPACK_ARCHPATCH_BUNDLE_SCRIPT})
endif()
