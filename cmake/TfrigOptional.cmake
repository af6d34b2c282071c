# Packaged libraries that later stages use are linked here, one place, so that
# adding one does not mean editing the main CMakeLists of every stage.
function(tfrig_link_optional target)
endfunction()
