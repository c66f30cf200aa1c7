#pragma once
// Reals in files of either byte order.
#include <bit>
#include <cstdint>
#include <cstring>

namespace dslash::io {

enum class ByteOrder { Little, Big };

inline constexpr ByteOrder kHostOrder = std::endian::native == std::endian::little ? ByteOrder::Little : ByteOrder::Big;

inline std::uint32_t byteswap(std::uint32_t w) { return __builtin_bswap32(w); }
inline std::uint64_t byteswap(std::uint64_t w) { return __builtin_bswap64(w); }

// The raw word at p, in host order, from a file stored in `order`.
template <class Word>
Word load_word(const char* p, ByteOrder order) {
  Word w;
  std::memcpy(&w, p, sizeof w);
  if (order != kHostOrder) w = byteswap(w);
  return w;
}

template <class Word>
void store_word(char* p, Word w, ByteOrder order) {
  if (order != kHostOrder) w = byteswap(w);
  std::memcpy(p, &w, sizeof w);
}

}  // namespace dslash::io
