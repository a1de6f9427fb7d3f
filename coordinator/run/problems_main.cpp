// hpcreward-problems: what a problem catalog holds, without MPI or a running pipeline. Lists a
// catalog's problems (a built-in one by name, or a JSON file: docs/problems.md), describes one,
// or prints the catalog as GET /v1/problems serves it, so scripts and trainers can ask what a
// problem id means (its language decides which ranks score it).
#include <cstdio>
#include <iostream>
#include <string>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "common/builtin_catalogs.hpp"
#include "common/messages_json.hpp"
#include "common/problem_catalog.hpp"

namespace po = boost::program_options;
using namespace hpcreward;

namespace {

nlohmann::json catalog_json(const ProblemCatalog &catalog) {
  return {{"catalog", catalog.name}, {"source", catalog.source}, {"problems", nlohmann::json(catalog.problems)}};
}

void print_table(const ProblemCatalog &catalog) {
  std::printf("%s (%s): %zu problems\n", catalog.name.c_str(), catalog.source.c_str(), catalog.problems.size());
  for (const Problem &problem : catalog.problems)
    std::printf("  %-26s %-4s %-4s %-10s %-20s %s\n", problem.id.c_str(),
                std::string(to_string(problem.language)).c_str(), std::string(to_string(problem.precision)).c_str(),
                to_string(problem.layout).c_str(), to_string(problem.nominal).c_str(), problem.description.c_str());
}

}  // namespace

int main(int argc, char **argv) {
  po::options_description options("hpcreward-problems [--problems NAME|FILE] [--json] [ID]");
  options.add_options()("help,h", "this text")
      ("problems", po::value<std::string>()->default_value("default"), "a built-in catalog's name or a catalog file")
      ("json", po::bool_switch(), "the catalog (or the problem) as JSON, as GET /v1/problems serves it")
      ("catalogs", po::bool_switch(), "list the built-in catalogs' names")
      ("id", po::value<std::string>(), "one problem: its definition");
  po::positional_options_description positional;
  positional.add("id", 1);
  po::variables_map values;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), values);
    po::notify(values);
    if (values.count("help")) {
      std::cout << options;
      return 0;
    }
    if (values["catalogs"].as<bool>()) {
      for (const std::string &name : builtin_catalog_names()) std::printf("%s\n", name.c_str());
      return 0;
    }
    const ProblemCatalog catalog = load_problem_catalog(values["problems"].as<std::string>());
    const bool json = values["json"].as<bool>();
    if (values.count("id")) {
      const std::string id = values["id"].as<std::string>();
      const Problem *problem = catalog.find(id);
      if (!problem) {
        std::fprintf(stderr, "hpcreward-problems: %s is not a problem of %s; known: %s\n", id.c_str(),
                     catalog.source.c_str(), catalog.ids().c_str());
        return 2;
      }
      if (json) {
        std::printf("%s\n", nlohmann::json(*problem).dump(1).c_str());
      } else {
        std::printf("%s %s %s %s %s\n", problem->id.c_str(), std::string(to_string(problem->language)).c_str(),
                    std::string(to_string(problem->precision)).c_str(), to_string(problem->layout).c_str(),
                    to_string(problem->nominal).c_str());
      }
      return 0;
    }
    if (json)
      std::printf("%s\n", catalog_json(catalog).dump(1).c_str());
    else
      print_table(catalog);
    return 0;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "hpcreward-problems: %s\n", error.what());
    return 2;
  }
}
