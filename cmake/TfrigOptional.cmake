# Packaged libraries that later stages use are linked here, one place, so that
# adding one does not mean editing the main CMakeLists of every stage.
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
