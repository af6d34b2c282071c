# Embeds data/knowledge/*.json into the binary: one generated header with the
# bytes of each file, so tfrig answers offline and a test can diff the embedded
# copy against the files.
include(${CMAKE_CURRENT_LIST_DIR}/TfrigEmbed.cmake)

function(tfrig_embed_knowledge out_header)
  tfrig_embed_files(${out_header} "cmake/TfrigKnowledge.cmake from data/knowledge/*.json"
                    ${PROJECT_SOURCE_DIR}/data/knowledge/*.json tfrig::knowledge::embedded kFile File kFiles)
endfunction()
