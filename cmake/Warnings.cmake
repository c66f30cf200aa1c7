# Warnings for our own targets. No -Werror: GCC 12 warns falsely inside AVX-512
# intrinsics (GCC bug 105593), and a warning must never break a user's build.
add_library(dslash_warnings INTERFACE)
# C++ only: nvcc takes none of these (its host compiler gets -Xcompiler=-Wall from the CUDA targets).
target_compile_options(dslash_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wconversion -Wno-sign-conversion>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)
