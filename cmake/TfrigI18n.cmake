# Message catalogs: po/<lang>.po compiled by msgfmt (Debian package gettext,
# scripts/deps-i18n.txt) at build time and embedded into the binary, so tfrig
# speaks the user's language with no install step and no locale files on disk.
find_program(TFRIG_MSGFMT msgfmt REQUIRED)

function(tfrig_embed_catalogs target)
  file(GLOB po_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/po/*.po)
  list(SORT po_files)
  set(mo_files "")
  set(languages "")
  foreach(po IN LISTS po_files)
    get_filename_component(lang ${po} NAME_WE)
    set(mo ${PROJECT_BINARY_DIR}/po/${lang}.mo)
    # --check: a translation whose format or header is broken fails the build.
    add_custom_command(OUTPUT ${mo}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/po
      COMMAND ${TFRIG_MSGFMT} --check -o ${mo} ${po}
      DEPENDS ${po}
      COMMENT "msgfmt ${lang}.po"
      VERBATIM)
    list(APPEND mo_files ${mo})
    list(APPEND languages ${lang})
  endforeach()
  set(out ${PROJECT_BINARY_DIR}/generated/i18n_catalogs.cpp)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} "-DOUT=${out}" "-DLANGUAGES=${languages}" "-DMO_FILES=${mo_files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/TfrigEmbedCatalogs.cmake
    DEPENDS ${mo_files} ${PROJECT_SOURCE_DIR}/cmake/TfrigEmbedCatalogs.cmake ${PROJECT_SOURCE_DIR}/cmake/TfrigEmbed.cmake
    COMMENT "Embedding message catalogs"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
