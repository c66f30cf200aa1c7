#include <stdexcept>

#include "cli/commands.hpp"

namespace dslash::cli {

CLI::Option* add_lattice_option(CLI::App& cmd, Coord& dims, const std::string& default_text) {
  auto* opt = cmd.add_option_function<std::string>(
      "--lattice",
      [&dims](const std::string& text) {
        const Coord d = parse_extents(text);
        Geometry{d};  // validate now: even, positive, representable
        dims = d;
      },
      "global lattice size, x first: 16x16x16x32 (or 16.16.16.32)");
  if (!default_text.empty()) opt->default_str(default_text);
  opt->type_name("LxLxLxL");
  return opt;
}

}  // namespace dslash::cli
