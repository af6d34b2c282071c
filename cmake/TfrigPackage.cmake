# `cpack -G DEB` in the build directory: tfrig_<version>_amd64.deb with the
# binary, its manual pages and its bash/zsh/fish completions, Depends computed
# from the shared libraries it links (dpkg-shlibdeps, from dpkg-dev).
# Pages and completions are made by the built binary itself (`tfrig man`,
# `tfrig completion`), so they always match its options.
set(TFRIG_DOCS_DIR ${PROJECT_BINARY_DIR}/share)
add_custom_command(
  OUTPUT ${TFRIG_DOCS_DIR}/man/tfrig.1.gz ${TFRIG_DOCS_DIR}/completions/tfrig ${TFRIG_DOCS_DIR}/completions/_tfrig
         ${TFRIG_DOCS_DIR}/completions/tfrig.fish
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${TFRIG_DOCS_DIR}
  COMMAND ${CMAKE_COMMAND} -E env LANGUAGE= LC_ALL=C LANG=C $<TARGET_FILE:tfrig> --lang en man -o ${TFRIG_DOCS_DIR}/man
  COMMAND sh -c "gzip -9n -f \"$0\"/*.1" ${TFRIG_DOCS_DIR}/man
  COMMAND ${CMAKE_COMMAND} -E make_directory ${TFRIG_DOCS_DIR}/completions
  COMMAND ${CMAKE_COMMAND} -E env LANGUAGE= LC_ALL=C LANG=C sh -c "\"$0\" --lang en completion bash > \"$1/tfrig\" && \"$0\" --lang en completion zsh > \"$1/_tfrig\" && \"$0\" --lang en completion fish > \"$1/tfrig.fish\""
          $<TARGET_FILE:tfrig> ${TFRIG_DOCS_DIR}/completions
  DEPENDS tfrig
  COMMENT "Manual pages and shell completions from tfrig's command definitions"
  VERBATIM)
add_custom_target(tfrig_docs ALL DEPENDS ${TFRIG_DOCS_DIR}/man/tfrig.1.gz)

include(GNUInstallDirs)
install(DIRECTORY ${TFRIG_DOCS_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1.gz")
install(FILES ${TFRIG_DOCS_DIR}/completions/tfrig DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${TFRIG_DOCS_DIR}/completions/_tfrig DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${TFRIG_DOCS_DIR}/completions/tfrig.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tfrig)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "tfrig maintainers <tfrig@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "plan, check, measure and set up a TensorFlow GPU server")
set(CPACK_PACKAGE_DESCRIPTION
    "tfrig checks a TensorFlow GPU server's driver, CUDA, cuDNN and TensorFlow stack (live or from captures), plans its hardware, measures the input pipeline, writes the setup and packs small-file datasets into TFRecord shards. NVIDIA libraries are loaded at run time when present.")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tfrig_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
