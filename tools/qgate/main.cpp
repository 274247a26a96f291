// qgate: the command-line front of the verification suite. Subcommands register
// themselves (commands.hpp); this file only assembles them and maps failures to exit codes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>

#include "properties/plugin_host.hpp"
#include "properties/plugin_session.hpp"
#include "tools/qgate/commands.hpp"

int main(int argc, char** argv) {
  // A plugin kernel's session process (properties/plugin_session.hpp): qgate re-executed by
  // itself, never by a user; not a subcommand, so it stays out of --help.
  if (argc == 3 && std::strcmp(argv[1], "__plugin-session") == 0)
    return qgate::plugin_session_main(std::atoi(argv[2]));
  // Reading a plugin's kernel table, likewise in a process of its own (properties/plugin_host.hpp).
  if (argc >= 4 && std::strcmp(argv[1], "__plugin-table") == 0) return qgate::plugin_table_main(argc - 2, argv + 2);
  // Text output goes out a whole line at a time, also into a pipe or a file, so that lines
  // on stderr (failures, a plugin's prints, a session process's) never land inside a row of
  // the tables when both streams share one log. `qgate dequant` writes binary: fully buffered.
  if (!(argc > 1 && std::strcmp(argv[1], "dequant") == 0)) std::setvbuf(stdout, nullptr, _IOLBF, 1 << 16);
  CLI::App app{"qgate — numerical verification gate for quantized LLM kernels", "qgate"};
  app.require_subcommand(1);

  // ---- subcommands: one add_<name>() per cmd_<name>.cpp; add new ones here ----
  qgate::cli::add_list(app);
  qgate::cli::add_dequant(app);
  qgate::cli::add_gate(app);
  qgate::cli::add_repro(app);
  qgate::cli::add_mutants(app);
  qgate::cli::add_bench(app);
  qgate::cli::add_probe(app);
  qgate::cli::add_gguf(app);
  qgate::cli::add_census(app);
  // ---- end of subcommands ----

  try {
    // CLI11_PARSE, except that usage errors exit 2 (documented) rather than CLI11's 100+.
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int rc = app.exit(e);  // prints help, or the error and a --help hint
      return rc == 0 ? 0 : qgate::cli::kExitUsage;
    }
  } catch (const qgate::cli::Failure& f) {
    // stdout first, whole: the verdict lines before it must not be split by this line when
    // both streams go to one log.
    std::cout.flush();
    std::fflush(stdout);
    std::fprintf(stderr, "qgate: %s\n", f.message.c_str());
    return f.exit_code;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "qgate: out of memory\n");
    return qgate::cli::kExitIo;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "qgate: internal error: %s\n", e.what());
    return qgate::cli::kExitIo;
  }
  return 0;
}
