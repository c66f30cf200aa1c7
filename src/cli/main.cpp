// dslash: the mini-app's one binary. Subcommands generate and inspect files and apply the operator.
// Every failure prints one line on stderr and exits with status 2.
#include <cstdio>
#include <exception>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"dslash: a Wilson-Dslash performance-portability mini-app"};
  app.name("dslash");
  app.require_subcommand(1);
  dslash::cli::add_gauge_command(app);
  dslash::cli::add_spinor_command(app);
  dslash::cli::add_info_command(app);
  dslash::cli::add_apply_command(app);
  int exit_code = 0;
  dslash::cli::add_bench_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "dslash: %s (try '--help')\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dslash: error: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
