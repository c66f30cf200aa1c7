# Cross build for AArch64 with Debian's toolchain (g++-aarch64-linux-gnu, libgomp1-arm64-cross) whose
# tests ctest runs under qemu-user (scripts/test.sh, the "aarch64" stage):
#   cmake -S . -B build/aarch64 -G Ninja --toolchain cmake/aarch64-linux-gnu.cmake
# Cross-compiling turns on DSLASH_KERNELS_ONLY: the kernels (NEON included) and their SIMD and kernel
# tests, the kernel tests' NEON variants only (tests/CMakeLists.txt), with GoogleTest built from
# Debian's source package (/usr/src/googletest).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)

# Libraries from the cross sysroot only; the header-only xsimd from the (x86-64) host's package.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(xsimd_DIR /usr/lib/x86_64-linux-gnu/cmake/xsimd CACHE PATH "the host's libxsimd-dev (header only)")
