# Sourced by the build scripts: CMake arguments that make a second build
# faster when ccache is installed (scripts/deps.txt lists it; it is optional).
# The precompiled headers need these sloppiness settings for ccache to reuse
# its results (ccache manual, "Precompiled headers").
cmake_launcher=()
if command -v ccache >/dev/null 2>&1; then
  cmake_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
fi
# The clang builds (sanitizers, fuzzers) link some 40 programs of 60-130 MB
# each; lld (scripts/deps.txt) links one in about a quarter of the CPU time of
# GNU ld (bench/RESULTS.md, "CI time"). Optional like ccache.
clang_linker=()
if command -v ld.lld >/dev/null 2>&1; then
  clang_linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld)
fi
