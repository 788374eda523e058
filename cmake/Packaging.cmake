# `cpack` in the build folder (after the build) writes into the build folder (`cpack -B DIR`: into
# DIR):
#   lab_check-<version>-linux-<arch>.tar.gz   bin/lab_check and the README under one top folder
#   lab-check_<version>_<debian arch>.deb      /usr/bin/lab_check (Debian names allow no "_")
# each with a .sha256 beside it (`sha256sum -c` reads it). The binary is the one file a node
# needs: data and probes are compiled in, and it needs nothing but glibc >= 2.34 (docs/install.md,
# "Platforms"; tests/packaging checks both). Installing into a temporary root and running it from
# there is tests/packaging/package_install_test.cpp.
install(TARGETS lab_check RUNTIME DESTINATION bin)
install(FILES README.md DESTINATION share/doc/lab_check)

set(CPACK_PACKAGE_NAME lab_check)
set(CPACK_PACKAGE_VENDOR "lab_check")
set(CPACK_PACKAGE_CONTACT "lab_check developers (README.md)")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Checks a machine for neural-network training and serving: environment, GPU and CPU benchmarks, node health gate")
set(CPACK_PACKAGE_FILE_NAME "lab_check-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_PACKAGE_NAME lab-check)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# The floor the binary is held to (LAB_CHECK_GLIBC_FLOOR, checked by scripts/glibc-floor.sh), not
# dpkg-shlibdeps' answer, which would need the target's libc6 package registry on a cross build.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= ${LAB_CHECK_GLIBC_FLOOR})")
# Debian's names for the two architectures we build; `dpkg --print-architecture` (CPack's default)
# would name the build machine's, wrong for the arm64 cross build.
if(CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_SYSTEM_PROCESSOR STREQUAL "x86_64")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()
include(CPack)
