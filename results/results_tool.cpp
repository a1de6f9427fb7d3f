// hpcreward-results: reads a reward log, also while a run is still writing it.
//   hpcreward-results summary FILE.h5 [--json]
//   hpcreward-results stages FILE.h5
//   hpcreward-results archive FILE.h5
//   hpcreward-results export FILE.h5 [--format csv|jsonl] [--table rewards|stage_events|archive|rank_events]
//   hpcreward-results source FILE.h5 SHA256
//   hpcreward-results provenance FILE.h5
//   hpcreward-results plot FILE.h5 --out DIR | report FILE.h5 [--out FILE.html] | watch FILE.h5
//                     | rescore FILE.h5 --mode MODE
//     (drawn by the Python package hpcreward_report: results/python_report.hpp)
// Exit status: 0 done, 1 the log could not be read, has no such source or lacks the dataset
// asked for (a schema 1 log has no stage events or archive, a log before schema 4 no rank
// events), 2 usage error or no such file, 3 a live writer holds the log but has not made it
// readable yet (it is creating it): try again.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "results/export.hpp"
#include "results/log_file_state.hpp"
#include "results/python_report.hpp"
#include "results/reward_log.hpp"
#include "results/summary.hpp"
#include "results/summary_json.hpp"

namespace po = boost::program_options;
using namespace hpcreward;

namespace {

constexpr int kUsageError = 2;
constexpr int kNotReadableYet = 3;

constexpr const char *kUsage =
    "usage: hpcreward-results COMMAND FILE.h5 [ARGUMENTS]\n"
    "\n"
    "Reads an hpcreward reward log, also while a run is still writing it.\n"
    "\n"
    "commands:\n"
    "  summary FILE.h5 [--json]     per problem and stage: candidates, statuses, GFLOPS,\n"
    "                               the best candidate's techniques, archive niches opened;\n"
    "                               then the benchmark ranks the run lost, if any; --json:\n"
    "                               the table and each stage's best row as JSON, with whether\n"
    "                               the log's writer is running, closed it or died\n"
    "  stages FILE.h5               every stage event, then each problem's current stage\n"
    "  archive FILE.h5              the current archive: each niche and its elite\n"
    "  export FILE.h5 [--format csv|jsonl] [--table rewards|stage_events|archive|rank_events]\n"
    "                               every record of a table to stdout (default: csv, rewards)\n"
    "  source FILE.h5 SHA256        the candidate source stored under SHA256\n"
    "  provenance FILE.h5           what produced the log, as JSON\n"
    "  plot FILE.h5 --out DIR       the run's plots as PNG files in DIR\n"
    "  report FILE.h5 [--out FILE.html]\n"
    "                               one self-contained HTML report (default: report.html\n"
    "                               beside the log); prints its path\n"
    "  watch FILE.h5 [--interval S] a live view of a running log, until its writer closes it\n"
    "  rescore FILE.h5 --mode MODE  the rows' rewards in reward mode MODE (gflops, fraction,\n"
    "                               speedup:NAME), CSV (docs/problems.md, reward modes)\n"
    "  (plot, report, watch and rescore need python3 with h5py and numpy; plot and report\n"
    "  also matplotlib and pygments)\n";

// A mistake in how the tool was called: reported with the usage text, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A log that is not there: also exit status 2, but the usage text would only hide the message.
struct NoSuchFile : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A log its live writer is still creating (HDF5 cannot open it yet): exit status 3, so that a
// caller that follows a run (`watch`) waits rather than gives up.
struct NotReadableYet : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses a subcommand's arguments: the positional `names` (all required) and `options`.
po::variables_map parse(const std::vector<std::string> &args, const std::vector<std::string> &names,
                        po::options_description options = po::options_description()) {
  po::positional_options_description positional;
  for (const std::string &name : names) {
    options.add_options()(name.c_str(), po::value<std::string>()->required());
    positional.add(name.c_str(), 1);
  }
  po::variables_map values;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), values);
    po::notify(values);
  } catch (const po::error &error) {
    throw UsageError(error.what());
  }
  return values;
}

std::filesystem::path existing_file(const po::variables_map &values) {
  std::filesystem::path file = values["file"].as<std::string>();
  if (!std::filesystem::exists(file)) throw NoSuchFile(file.string() + ": no such file");
  return file;
}

// The log's rows; NotReadableYet if they cannot be read while a live writer holds the log.
// `writer`: its state if the caller asked already.
std::vector<RewardRow> rows_of(const std::filesystem::path &file,
                               std::optional<h5::WriterState> writer = std::nullopt) {
  try {
    return read_rewards(file);
  } catch (const std::exception &error) {
    if ((writer ? *writer : h5::writer_state(file)) != h5::WriterState::running) throw;
    throw NotReadableYet(std::string(error.what()) +
                         "; a live writer holds the log and has not made it readable yet: try again in a moment");
  }
}

int summary(const std::vector<std::string> &args) {
  po::options_description options;
  options.add_options()("json", po::bool_switch(), "the summary and the writer's state as JSON");
  const auto values = parse(args, {"file"}, options);
  const auto file = existing_file(values);
  if (values["json"].as<bool>()) {
    // The writer's state before the rows: once it has closed the log or died, the read below
    // sees every row there will ever be (watch's last frame relies on it).
    const h5::WriterState writer = h5::writer_state(file);
    RunSummary run;
    for (const RewardRow &row : rows_of(file, writer)) run.add(row);
    std::cout << summary_json(run, writer) << '\n';
    return 0;
  }
  std::cout << format_summary(rows_of(file));
  if (has_rank_events(file))  // schema 4 on
    if (const std::string lost = format_rank_events(read_rank_events(file)); !lost.empty()) std::cout << '\n' << lost;
  return 0;
}

int stages(const std::vector<std::string> &args) {
  const auto file = existing_file(parse(args, {"file"}));
  std::cout << format_stage_events(read_stage_events(file));
  return 0;
}

int archive(const std::vector<std::string> &args) {
  const auto file = existing_file(parse(args, {"file"}));
  std::cout << format_archive(read_archive(file));
  return 0;
}

template <typename Records>
void write_records(const std::string &format, const Records &records) {
  if (format == "csv")
    write_csv(std::cout, records);
  else
    write_jsonl(std::cout, records);
}

int export_rows(const std::vector<std::string> &args) {
  po::options_description options;
  options.add_options()("format", po::value<std::string>()->default_value("csv"), "csv or jsonl")(
      "table", po::value<std::string>()->default_value("rewards"),
      "rewards, stage_events, archive or rank_events");
  const auto values = parse(args, {"file"}, options);
  const std::string format = values["format"].as<std::string>();
  if (format != "csv" && format != "jsonl")
    throw UsageError("--format must be csv or jsonl, not '" + format + "'");
  const std::string table = values["table"].as<std::string>();
  if (table != "rewards" && table != "stage_events" && table != "archive" && table != "rank_events")
    throw UsageError("--table must be rewards, stage_events, archive or rank_events, not '" + table + "'");
  const auto file = existing_file(values);
  if (table == "rewards")
    write_records(format, read_rewards(file));
  else if (table == "stage_events")
    write_records(format, read_stage_events(file));
  else if (table == "rank_events")
    write_records(format, read_rank_events(file));
  else
    write_records(format, read_archive(file));
  return 0;
}

int source(const std::vector<std::string> &args) {
  const auto values = parse(args, {"file", "sha256"});
  const auto file = existing_file(values);
  const std::string sha256 = values["sha256"].as<std::string>();
  const auto text = read_source(file, sha256);
  if (!text) {
    std::cerr << "hpcreward-results: " << file.string() << ": no source with sha256 " << sha256
              << '\n';
    return 1;
  }
  std::cout << *text;  // exactly as stored, so `> candidate.c` reproduces the file
  return 0;
}

int provenance(const std::vector<std::string> &args) {
  const Provenance p = read_provenance(existing_file(parse(args, {"file"})));
  // config_json and hosts_json are JSON documents: nest them rather than quote them.
  const auto nested = [](const std::string &text) {
    nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(text, nullptr, false);
    return parsed.is_discarded() ? nlohmann::ordered_json(text) : parsed;
  };
  const nlohmann::ordered_json out = {
      {"schema_version", p.schema_version}, {"created_utc", p.created_utc},
      {"git_revision", p.git_revision},     {"config", nested(p.config_json)},
      {"hosts", nested(p.hosts_json)},      {"compiler_version", p.compiler_version},
      {"blas_version", p.blas_version},     {"mpi_version", p.mpi_version},
      {"hdf5_version", p.hdf5_version},     {"seed", p.seed},
  };
  std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  if (arguments.empty()) {
    std::cerr << kUsage;
    return kUsageError;
  }
  const std::string &command = arguments.front();
  const std::vector<std::string> rest(arguments.begin() + 1, arguments.end());
  try {
    if (command == "-h" || command == "--help" || command == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "summary") return summary(rest);
    if (command == "stages") return stages(rest);
    if (command == "archive") return archive(rest);
    if (command == "export") return export_rows(rest);
    if (command == "source") return source(rest);
    if (command == "provenance") return provenance(rest);
    if (command == "plot" || command == "report" || command == "watch" || command == "rescore") {
      std::vector<std::string> forwarded = {command};
      forwarded.insert(forwarded.end(), rest.begin(), rest.end());
      const std::string failure = exec_python_report(forwarded);  // returns only if it failed
      std::cerr << "hpcreward-results: " << failure << '\n';
      return 1;
    }
    throw UsageError("unknown command '" + command + "'");
  } catch (const UsageError &error) {
    std::cerr << "hpcreward-results: " << error.what() << "\n\n" << kUsage;
    return kUsageError;
  } catch (const NoSuchFile &error) {
    std::cerr << "hpcreward-results: " << error.what() << '\n';
    return kUsageError;
  } catch (const NotReadableYet &error) {
    std::cerr << "hpcreward-results: " << error.what() << '\n';
    return kNotReadableYet;
  } catch (const std::exception &error) {
    std::cerr << "hpcreward-results: " << error.what() << '\n';
    return 1;
  }
}
