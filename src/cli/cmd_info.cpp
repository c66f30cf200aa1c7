// dslash info U.nersc: the header, the recomputed plaquette and link trace, and the check verdicts.
#include <cstdio>

#include "cli/commands.hpp"
#include "io/atomic_file.hpp"
#include "io/nersc.hpp"

namespace dslash::cli {

void add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("info", "print a NERSC file's header and verify its checksum, plaquette and link trace");
  cmd->add_option("file", *path, "NERSC gauge file")->required();
  cmd->callback([path] {
    io::NerscInfo info;
    const std::string bytes = io::read_file_bytes(*path);
    (void)io::parse_nersc(bytes, info, *path);
    std::printf("file            %s\n", path->c_str());
    for (const auto& [k, v] : info.header) std::printf("  %-20s = %s\n", k.c_str(), v.c_str());
    std::printf("byte order      %s\n", info.big_endian ? "big-endian" : "little-endian");
    std::printf("checksum        header %08x  data %08x  %s\n", info.checksum_header, info.checksum_data,
                info.checksum_ok() ? "OK" : "MISMATCH");
    std::printf("plaquette       header %.12f  data %.12f  %s\n", info.plaquette_header, info.plaquette_data,
                info.plaquette_ok() ? "OK" : "MISMATCH");
    std::printf("link trace      header %.12f  data %.12f  %s\n", info.link_trace_header, info.link_trace_data,
                info.link_trace_ok() ? "OK" : "MISMATCH");
    if (!info.checksum_ok() || !info.plaquette_ok() || !info.link_trace_ok())
      throw io::NerscError(*path + ": verification failed (see above)");
  });
}

}  // namespace dslash::cli
