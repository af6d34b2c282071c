# Packaged libraries that the stages use are found and linked here, one
# place, so that adding one does not mean editing the main CMakeLists. All are
# Debian 12 packages listed in scripts/deps*.txt.
find_package(PkgConfig REQUIRED)

# pugixml (libpugixml-dev) parses `nvidia-smi -q -x` for
# `tfrig import nvidia-smi-xml` and `doctor --nvidia-smi-xml`.
find_package(pugixml CONFIG REQUIRED)

# zlib (zlib1g-dev): TFRecord GZIP/ZLIB compression, as TensorFlow's
# ZlibOutputBuffer/ZlibInputStream use it. Required by `tfrig pack/verify`.
find_package(ZLIB REQUIRED)

# yaml-cpp (libyaml-cpp-dev): price books for `tfrig plan --prices FILE.yaml`.
find_package(yaml-cpp CONFIG REQUIRED)

find_package(SQLite3 REQUIRED)  # bench history (libsqlite3-dev)
pkg_check_modules(TFRIG_URING REQUIRED IMPORTED_TARGET liburing)  # bench storage (liburing-dev)
pkg_check_modules(TFRIG_TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg)  # bench decode (libturbojpeg0-dev)

# ISA-L (libisal-dev): crc32_iscsi() = CRC-32C with runtime CPU dispatch
# (SSE4.2/PCLMUL/AVX-512). Optional: without it core/crc32c.cpp uses SSE4.2
# directly or its portable table, with identical results.
pkg_check_modules(TFRIG_ISAL IMPORTED_TARGET libisal)

function(tfrig_link_optional target)
  target_link_libraries(${target} PRIVATE pugixml::pugixml SQLite::SQLite3 PkgConfig::TFRIG_URING
                                          PkgConfig::TFRIG_TURBOJPEG yaml-cpp)
  target_link_libraries(${target} PUBLIC ZLIB::ZLIB)
  if(TFRIG_ISAL_FOUND)
    target_link_libraries(${target} PRIVATE PkgConfig::TFRIG_ISAL)
    target_compile_definitions(${target} PRIVATE TFRIG_HAVE_ISAL=1)
  endif()
endfunction()
