#pragma once
// Each subcommand of the `dslash` binary registers itself on the app; its callback does the work
// and throws std::exception with a one-line message on any failure.
#include <CLI/CLI.hpp>

#include "dslash/lattice/geometry.hpp"

namespace dslash::cli {

void add_gauge_command(CLI::App& app);
void add_spinor_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_apply_command(CLI::App& app);

// A --lattice option: "16x16x16x32" or "16.16.16.32", validated (even, positive) while parsing.
CLI::Option* add_lattice_option(CLI::App& cmd, Coord& dims, const std::string& default_text = "");

}  // namespace dslash::cli
