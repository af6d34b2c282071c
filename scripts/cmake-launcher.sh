# Sourced by the build scripts: CMake arguments that make a second build
# faster when ccache is installed (scripts/deps.txt lists it; it is optional).
# The precompiled headers need these sloppiness settings for ccache to reuse
# its results (ccache manual, "Precompiled headers").
cmake_launcher=()
if command -v ccache >/dev/null 2>&1; then
  cmake_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
fi
