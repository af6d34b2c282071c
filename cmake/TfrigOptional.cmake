# Packaged libraries that later stages use are linked here, one place, so that
# adding one does not mean editing the main CMakeLists of every stage.
#
# pugixml (Debian: libpugixml-dev) parses `nvidia-smi -q -x` for
# `tfrig import nvidia-smi-xml` and `doctor --nvidia-smi-xml`.
find_package(pugixml CONFIG REQUIRED)

function(tfrig_link_optional target)
  target_link_libraries(${target} PRIVATE pugixml::pugixml)
endfunction()
