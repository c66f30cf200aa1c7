// libFuzzer target: the .npy spinor reader must turn any input into spinors or a clean
// std::runtime_error (NpyError, or the memory check), never a crash, leak, hang or logic_error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)dslash::io::parse_spinors_npy<double>(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
