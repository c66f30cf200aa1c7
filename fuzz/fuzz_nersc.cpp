// libFuzzer target: the NERSC reader must turn any input into a gauge field or a clean
// std::runtime_error (NerscError, or the memory check), never a crash, leak, hang or logic_error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/nersc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    dslash::io::NerscInfo info;
    (void)dslash::io::parse_nersc(std::string_view(reinterpret_cast<const char*>(data), size), info, "fuzz");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
