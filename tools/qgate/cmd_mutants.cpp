// qgate mutants: the kill matrix. The release binary carries no planted defects, so it
// hands over to its sibling qgate-mutants (the same tool linked against the mutant build
// of the kernels), which switches each mutant on and runs every applicable property.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "properties/kill_matrix.hpp"
#include "tools/qgate/commands.hpp"

namespace qgate::cli {

void add_mutants(CLI::App& app) {
  auto* cmd = app.add_subcommand("mutants", "Run the planted mutants and print the kill matrix (a survivor exits 1)");
  auto only = std::make_shared<std::string>();
  auto write = std::make_shared<std::string>();
  auto list = std::make_shared<bool>(false);
  cmd->add_option("--only", *only, "one mutant by name");
  cmd->add_option("--write-cases", *write, "write each mutant's killing case into this directory");
  cmd->add_flag("--list", *list, "list the mutants and the bugs they model");
  cmd->callback([=] {
    if (*list) {
      for (const mutant::Info& m : mutant::all())
        std::cout << m.name << "  [" << m.target << ", killed by " << m.killer << "]\n    " << m.what << "\n";
      return;
    }
    if (!only->empty() && !mutant::find(*only)) throw Failure{"unknown mutant '" + *only + "' (qgate mutants --list)"};
    if (!mutant::compiled_in()) {
      std::error_code ec;
      const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
      const auto sibling = self.parent_path() / "qgate-mutants";
      if (ec || !std::filesystem::exists(sibling))
        throw Failure{"this qgate has no mutant kernels and no qgate-mutants beside it; configure with -DQGATE_MUTANTS=ON"};
      std::vector<std::string> args = {sibling.string(), "mutants"};
      if (!only->empty()) args.insert(args.end(), {"--only", *only});
      if (!write->empty()) args.insert(args.end(), {"--write-cases", *write});
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      std::cout.flush();
      execv(argv[0], argv.data());
      throw Failure{"cannot run " + sibling.string(), 1};
    }
    const auto rows = run_kill_matrix(*only, *write);
    std::cout << format_kill_matrix(rows);
    int bad = 0;
    for (const MutantRow& r : rows) bad += !r.ok();
    std::cout << rows.size() - bad << " of " << rows.size() << " mutants killed by their named property\n";
    if (bad) throw Failure{std::to_string(bad) + " mutant(s) survived or escaped their named property", 1};
  });
}

}  // namespace qgate::cli
