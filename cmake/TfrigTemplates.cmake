# Embeds the templates `tfrig setup` fills (src/setup/templates/*.in) into the
# binary, like the knowledge files. The templates stay real files so shellcheck
# reads install.sh.in itself (the SetupTemplates.InstallShShellcheck test).
include(${CMAKE_CURRENT_LIST_DIR}/TfrigEmbed.cmake)

function(tfrig_embed_setup_templates out_header)
  tfrig_embed_files(${out_header} "cmake/TfrigTemplates.cmake from src/setup/templates/*.in"
                    ${PROJECT_SOURCE_DIR}/src/setup/templates/*.in tfrig::setup::embedded kTemplate Template kTemplates)
endfunction()
