#pragma once
// The readers' check of the numbers they read: a NaN or Inf, or a finite value past the range of the
// precision it is taken to (a double file read in single), is refused where it is, since one such
// number turns every iterate of a solve into NaN and the output of apply into Inf.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

namespace dslash::io {

// Whether x stays finite when converted to Real.
template <class Real>
bool representable(double x) {
  return std::isfinite(static_cast<Real>(x));
}

// The first of value(0), ..., value(count - 1) that is not representable in Real.
template <class Real, class Value>
std::optional<std::size_t> first_unrepresentable(std::size_t count, const Value& value) {
  for (std::size_t i = 0; i < count; ++i)
    if (!representable<Real>(value(i))) return i;
  return std::nullopt;
}

// What is wrong with x: "nan, not a finite number", or "1e+39, past single precision's range (...)".
template <class Real>
std::string unrepresentable_text(double x) {
  if (!std::isfinite(x)) return std::string(std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf") + ", not a finite number";
  char line[96];
  std::snprintf(line, sizeof line, "%.6g, past %s precision's range (largest %.6g)", x, sizeof(Real) == 4 ? "single" : "double",
                static_cast<double>(std::numeric_limits<Real>::max()));
  return line;
}

}  // namespace dslash::io
