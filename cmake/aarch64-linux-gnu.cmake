# Cross-building lab_check for arm64 (Grace Hopper GH200 and other SBSA servers) on Debian/Ubuntu
# amd64, with Debian's cross compiler and the arm64 packages of multiarch:
#   scripts/install-deps.sh --platforms   (g++-aarch64-linux-gnu, libfmt-dev:arm64, ...)
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# The headers of CLI11 and nlohmann-json are architecture-independent packages; fmt, OpenBLAS,
# GoogleTest and zlib come from /usr/lib/aarch64-linux-gnu. scripts/check-platforms.sh builds it
# this way and runs it under qemu-aarch64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Programs (git, readelf) are the build machine's; libraries and packages' CMake files the target's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# Programs built for arm64 run through qemu's user-mode emulator (Debian's qemu-user); with
# multiarch's libc6:arm64 the loader /lib/ld-linux-aarch64.so.1 is where the binaries expect it.
find_program(LAB_CHECK_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(LAB_CHECK_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${LAB_CHECK_QEMU_AARCH64})
endif()
