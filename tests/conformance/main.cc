/// ge-conformance: runs the ONNX backend test data through GE's ge-run path on the cpu
/// backend and checks the results against an expected-failures list. See usage().
/// Exit status: 0 no unexpected failure, 1 an unexpected failure or bad usage, 2 internal error.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "case_runner.h"
#include "conformance_options.h"
#include "expectations.h"
#include "opset_bump.h"
#include "ge/logging.h"
#include "ge/plugin_host.h"
#include "process_pool.h"
#include "report.h"
#include "test_case.h"
#include "tool_driver.h"

namespace ge::conformance {
namespace {

namespace fs = std::filesystem;

constexpr int kExitFailure = tools::kExitUserError;

int fail(const Status& status) { return tools::fail("ge-conformance", status); }

/// Loads the registries as the tools do; any plugin failure is an error here.
Status load_plugins(PluginHost& host, const ConformanceOptions& options, const fs::path& registry) {
  tools::SessionFlags flags;
  flags.plugin_files = options.plugin_files;
  GE_RETURN_IF_ERROR(tools::load_plugins(host, flags, registry));
  if (!host.failures().empty()) {
    std::string message = std::to_string(host.failures().size()) + " plugin failure(s):";
    for (const Status& failure : host.failures()) message += "\n  " + failure.to_string();
    return plugin_error(message);
  }
  return Status::ok();
}

bool matches_filters(const TestCase& test_case, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  const std::string id = test_case.id();
  for (const std::string& filter : filters) {
    if (id.find(filter) != std::string::npos) return true;
  }
  return false;
}

// A child reports "P" or "F<reason>".
std::string encode(const CaseOutcome& outcome) { return outcome.passed ? "P" : "F" + outcome.reason; }

CaseOutcome decode(const ChildOutcome& child) {
  if (child.kind != ChildOutcome::Kind::kCompleted) return {false, one_line_reason(child.describe())};
  if (child.result == "P") return {true, {}};
  if (!child.result.empty() && child.result[0] == 'F') return {false, child.result.substr(1)};
  return {false, one_line_reason("malformed result from the case's process: '" + child.result + "'")};
}

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(seconds < 10 ? 2 : 1) << seconds << " s";
  return out.str();
}

/// Runs every case at one level; results are in `cases` order.
Result<std::vector<CaseResult>> run_level(const PluginHost& host, const std::vector<TestCase>& cases, int opt_level,
                                          const ConformanceOptions& options) {
  const Tolerance tolerance = kOnnxTestTolerance;
  std::vector<CaseResult> results(cases.size());
  size_t finished = 0;
  auto record = [&](size_t index, CaseOutcome outcome, double seconds, const std::string& output) {
    CaseResult& result = results[index];
    result.test_case = &cases[index];
    result.passed = outcome.passed;
    result.reason =
        outcome.passed ? std::string() : (outcome.reason.empty() ? "failed without a message" : outcome.reason);
    result.seconds = seconds;
    ++finished;
    if (options.verbosity > 0) {
      std::cout << "[" << finished << "/" << cases.size() << "] -O" << opt_level << " " << cases[index].id() << ": "
                << (result.passed ? "ok" : "FAIL: " + result.reason) << " (" << seconds_text(seconds) << ")\n";
      if (!result.passed && options.verbosity > 1 && !output.empty()) std::cout << output << "\n";
      std::cout.flush();
    }
  };
  if (options.no_fork) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      CaseOutcome outcome = run_case(host, cases[i], opt_level, tolerance, options.opset);
      record(i, std::move(outcome), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
             {});
    }
    return results;
  }
  ProcessPoolOptions pool;
  pool.parallelism = options.jobs;
  pool.timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000));
  const Status status = run_in_children(
      cases.size(), pool, [&](size_t i) { return encode(run_case(host, cases[i], opt_level, tolerance, options.opset)); },
      [&](size_t i, const ChildOutcome& child) { record(i, decode(child), child.seconds, child.output); });
  if (!status.is_ok()) return status;
  return results;
}

void print_failure_list(const std::string& title, const std::vector<const CaseResult*>& results) {
  std::cout << title << " (" << results.size() << "):\n";
  for (const CaseResult* result : results) {
    std::cout << "  " << result->test_case->id();
    if (!result->reason.empty()) std::cout << "  # " << result->reason;
    std::cout << "\n";
  }
}

/// Prints the report for one level; returns the number of unexpected failures.
size_t report_level(int opt_level, const std::vector<std::string>& categories, const std::vector<CaseResult>& results,
                    double seconds, const ConformanceOptions& options, const ExpectedFailures& expected) {
  std::cout << "\n=== ONNX backend tests at -O" << opt_level << " (" << results.size() << " cases, "
            << seconds_text(seconds) << ") ===\n";
  for (const std::string& category : categories) {
    std::vector<CaseResult> of_category;
    for (const CaseResult& result : results) {
      if (result.test_case->category == category) of_category.push_back(result);
    }
    std::cout << "\n" << format_category_report(category, of_category);
  }
  std::cout << "\n";
  for (const std::string& category : categories) {
    size_t passed = 0;
    size_t failed = 0;
    for (const CaseResult& result : results) {
      if (result.test_case->category == category) ++(result.passed ? passed : failed);
    }
    std::cout << "-O" << opt_level << " " << category << ": " << passed << " passed, " << failed << " failed\n";
  }
  // The slowest cases are what to look at when the suite gets slow in CI.
  std::vector<const CaseResult*> by_time;
  for (const CaseResult& result : results) by_time.push_back(&result);
  const size_t shown = std::min<size_t>(5, by_time.size());
  std::partial_sort(by_time.begin(), by_time.begin() + static_cast<std::ptrdiff_t>(shown), by_time.end(),
                    [](const CaseResult* a, const CaseResult* b) { return a->seconds > b->seconds; });
  std::cout << "slowest:";
  for (size_t i = 0; i < shown; ++i) {
    std::cout << (i == 0 ? " " : ", ") << by_time[i]->test_case->id() << " " << seconds_text(by_time[i]->seconds);
  }
  std::cout << "\n";
  if (options.list_failures) {
    std::vector<const CaseResult*> failures;
    for (const CaseResult& result : results) {
      if (!result.passed) failures.push_back(&result);
    }
    print_failure_list("failures at -O" + std::to_string(opt_level), failures);
  }
  const ExpectationCheck check = check_expectations(results, expected);
  if (!check.newly_passing.empty()) {
    std::cout << "newly passing at -O" << opt_level << " — remove from the list (" << check.newly_passing.size()
              << "):\n";
    for (const CaseResult* result : check.newly_passing) std::cout << "  " << result->test_case->id() << "\n";
  }
  if (!check.unexpected_failures.empty()) {
    print_failure_list("UNEXPECTED FAILURES at -O" + std::to_string(opt_level) +
                           (options.expectations ? " (not in " + options.expectations->string() + ")" : ""),
                       check.unexpected_failures);
  }
  return check.unexpected_failures.size();
}

/// Listed ids of the categories run without a filter that name no existing case.
void report_stale_entries(const ExpectedFailures& expected, const std::vector<TestCase>& cases,
                          const ConformanceOptions& options) {
  if (!options.filters.empty()) return;
  std::set<std::string> ids;
  for (const TestCase& test_case : cases) ids.insert(test_case.id());
  const std::set<std::string> categories(options.categories.begin(), options.categories.end());
  for (const auto& [id, reason] : expected) {
    const std::string category = id.substr(0, id.find('/'));
    if (categories.count(category) > 0 && ids.count(id) == 0) {
      std::cout << "listed but no such case (remove from the list): " << id << "\n";
    }
  }
}

/// Rewrites `path` with this run's failures merged in (merge_run_into_expectations). A
/// case failing at only some of the levels run says so in its reason.
Status update_expectations(const fs::path& path, const std::vector<TestCase>& cases, const std::vector<int>& levels,
                           const std::vector<std::vector<CaseResult>>& results_per_level,
                           const ConformanceOptions& options) {
  ExpectedFailures existing;
  std::error_code error;
  if (fs::exists(path, error)) {
    GE_ASSIGN_OR_RETURN(existing, read_expected_failures(path));
  }
  std::set<std::string> run_ids;
  ExpectedFailures failures;
  for (size_t i = 0; i < cases.size(); ++i) {
    run_ids.insert(cases[i].id());
    std::string reason;
    std::vector<int> failing_levels;
    for (size_t l = 0; l < levels.size(); ++l) {
      const CaseResult& result = results_per_level[l][i];
      if (result.passed) continue;
      if (reason.empty()) reason = result.reason;
      failing_levels.push_back(levels[l]);
    }
    if (failing_levels.empty()) continue;
    if (failing_levels.size() < levels.size()) {
      std::string only;
      for (int level : failing_levels) only += (only.empty() ? "-O" : ", -O") + std::to_string(level);
      reason = "only at " + only + ": " + reason;
    }
    failures[cases[i].id()] = one_line_reason(reason);
  }
  std::set<std::string> whole_categories;
  if (options.filters.empty()) whole_categories.insert(options.categories.begin(), options.categories.end());
  const ExpectedFailures updated = merge_run_into_expectations(existing, run_ids, whole_categories, failures);
  GE_RETURN_IF_ERROR(write_expected_failures(updated, path));
  std::cout << "wrote " << updated.size() << " expected failure(s) to " << path.string() << "\n";
  return Status::ok();
}

int run(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  Result<ConformanceOptions> parsed = parse_options(args);
  if (!parsed.is_ok()) {
    std::cerr << "ge-conformance: " << parsed.status().message() << "\nrun 'ge-conformance --help' for usage\n";
    return kExitFailure;
  }
  const ConformanceOptions& options = *parsed;
  if (options.help) {
    std::cout << usage();
    return tools::kExitOk;
  }
  if (options.verbosity > 1) increase_verbosity(options.verbosity - 1);

  ExpectedFailures expected;
  if (options.expectations) {
    Result<ExpectedFailures> read = read_expected_failures(*options.expectations);
    if (!read.is_ok()) return fail(read.status());
    expected = std::move(read).value();
  }

  std::vector<TestCase> cases;
  for (const std::string& category : options.categories) {
    Result<std::vector<TestCase>> found = discover_cases(options.data_dir, category);
    if (!found.is_ok()) return fail(found.status());
    for (TestCase& test_case : *found) {
      if (matches_filters(test_case, options.filters)) cases.push_back(std::move(test_case));
    }
  }
  if (cases.empty()) return fail(invalid_argument("no test case matches the given --category/--filter"));
  if (options.opset != 0) {
    // The opset-bump suite runs only the cases whose outputs stay valid at the new opset.
    std::map<std::string, size_t> kept_out;
    std::vector<TestCase> bumped;
    for (TestCase& test_case : cases) {
      Result<std::optional<std::string>> blocker = opset_bump_blocker(test_case.dir / "model.onnx", options.opset);
      if (!blocker.is_ok()) return fail(blocker.status());
      if (*blocker) {
        ++kept_out[**blocker];
      } else {
        bumped.push_back(std::move(test_case));
      }
    }
    std::cout << "opset " << options.opset << ": " << bumped.size() << " cases bumped, "
              << cases.size() - bumped.size() << " kept out:";
    for (const auto& [reason, count] : kept_out) std::cout << " " << reason << " (" << count << ");";
    std::cout << "\n";
    cases = std::move(bumped);
    if (cases.empty()) return fail(invalid_argument("no case can be bumped to opset " + std::to_string(options.opset)));
  }

  // Loaded once here; forked children inherit the loaded plugins.
  PluginHost host;
  if (Status status = load_plugins(host, options, tools::default_registry(argv[0])); !status.is_ok()) return fail(status);

  size_t unexpected = 0;
  std::vector<std::vector<CaseResult>> results_per_level;
  for (int level : options.opt_levels) {
    const auto start = std::chrono::steady_clock::now();
    Result<std::vector<CaseResult>> results = run_level(host, cases, level, options);
    if (!results.is_ok()) return fail(results.status());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    unexpected += report_level(level, options.categories, *results, seconds, options, expected);
    results_per_level.push_back(std::move(results).value());
  }
  if (options.expectations) report_stale_entries(expected, cases, options);

  if (options.update_expectations) {
    if (Status status =
            update_expectations(*options.update_expectations, cases, options.opt_levels, results_per_level, options);
        !status.is_ok()) {
      return fail(status);
    }
    return tools::kExitOk;
  }
  if (unexpected > 0) {
    std::cout << "ge-conformance: " << unexpected << " unexpected failure(s)"
              << (options.expectations ? "" : " (no --expectations list given)") << "\n";
    return kExitFailure;
  }
  return tools::kExitOk;
}

}  // namespace
}  // namespace ge::conformance

int main(int argc, char** argv) {
  try {
    return ge::conformance::run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "ge-conformance: internal error: " << error.what() << "\n";
    return 2;
  }
}
