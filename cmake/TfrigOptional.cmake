# Packaged libraries that later stages use are linked here, one place, so that
# adding one does not mean editing the main CMakeLists of every stage.
#
# pugixml (Debian: libpugixml-dev) parses `nvidia-smi -q -x` for
# `tfrig import nvidia-smi-xml` and `doctor --nvidia-smi-xml`.
find_package(pugixml CONFIG REQUIRED)

# zlib (zlib1g-dev): TFRecord GZIP/ZLIB compression, as TensorFlow's
# ZlibOutputBuffer/ZlibInputStream use it. Required by `tfrig pack/verify`.
find_package(ZLIB REQUIRED)

# ISA-L (libisal-dev): crc32_iscsi() = CRC-32C with runtime CPU dispatch
# (SSE4.2/PCLMUL/AVX-512). Optional: without it core/crc32c.cpp uses SSE4.2
# directly or its portable table.
find_path(TFRIG_ISAL_INCLUDE_DIR isa-l/crc.h)
find_library(TFRIG_ISAL_LIBRARY isal)

function(tfrig_link_optional target)
  target_link_libraries(${target} PRIVATE pugixml::pugixml)
  target_link_libraries(${target} PUBLIC ZLIB::ZLIB)
  if(TFRIG_ISAL_INCLUDE_DIR AND TFRIG_ISAL_LIBRARY)
    target_include_directories(${target} PRIVATE ${TFRIG_ISAL_INCLUDE_DIR})
    target_link_libraries(${target} PRIVATE ${TFRIG_ISAL_LIBRARY})
find_package(PkgConfig REQUIRED)
find_package(SQLite3 REQUIRED)  # bench history (libsqlite3-dev)
pkg_check_modules(TFRIG_URING REQUIRED IMPORTED_TARGET liburing)  # bench storage (liburing-dev)
pkg_check_modules(TFRIG_TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg)  # bench decode (libturbojpeg0-dev)
# ISA-L (libisal-dev) gives the fastest CRC32C; without it a portable
# implementation with identical results is used.
pkg_check_modules(TFRIG_ISAL IMPORTED_TARGET libisal)

function(tfrig_link_optional target)
  target_link_libraries(${target} PRIVATE SQLite::SQLite3 PkgConfig::TFRIG_URING PkgConfig::TFRIG_TURBOJPEG)
  if(TFRIG_ISAL_FOUND)
    target_link_libraries(${target} PRIVATE PkgConfig::TFRIG_ISAL)
    target_compile_definitions(${target} PRIVATE TFRIG_HAVE_ISAL=1)
  endif()
endfunction()
