# Warnings for our own targets. No -Werror: GCC 12 warns falsely inside AVX-512
# intrinsics (GCC bug 105593), and a warning must never break a user's build.
add_library(dslash_warnings INTERFACE)
target_compile_options(dslash_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wconversion -Wno-sign-conversion)
