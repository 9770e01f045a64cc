#include "case_runner.h"

#include <algorithm>
#include <exception>
#include <system_error>
#include <vector>

#include <unistd.h>

#include "expectations.h"
#include "opset_bump.h"
#include "ge/onnx_common/value_proto.h"
#include "ge/session.h"

namespace ge::conformance {
namespace {

namespace fs = std::filesystem;

/// The first line of `message`, without the case's folder: reasons then read the same on
/// every machine ("model.onnx: ...", "test_data_set_0/input_1.pb: ...").
CaseOutcome failure(const TestCase& test_case, const std::string& message) {
  std::string text = message;
  const std::string folder = test_case.dir.string() + "/";
  for (size_t at = text.find(folder); at != std::string::npos; at = text.find(folder, at))
    text.erase(at, folder.size());
  std::string reason = one_line_reason(text);
  if (reason.empty()) reason = "failed without a message";
  return {false, reason};
}

/// test_data_set_* folders, sorted.
std::vector<fs::path> data_sets(const fs::path& case_dir) {
  std::vector<fs::path> sets;
  std::error_code error;
  for (fs::directory_iterator it(case_dir, error), end; !error && it != end; it.increment(error)) {
    if (it->is_directory(error) && it->path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(it->path());
    }
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

/// Number of consecutive `<prefix>K.pb` files from K = 0.
size_t count_files(const fs::path& dir, const std::string& prefix) {
  std::error_code error;
  size_t count = 0;
  while (fs::exists(dir / (prefix + std::to_string(count) + ".pb"), error)) ++count;
  return count;
}

Status run_data_set(Session& session, const fs::path& set_dir, const Tolerance& tolerance) {
  const std::string set_name = set_dir.filename().string();
  const std::vector<Value*> runtime_inputs = session.graph().runtime_inputs();
  const size_t input_files = count_files(set_dir, "input_");
  if (input_files != runtime_inputs.size()) {
    return invalid_argument(set_name + " has " + std::to_string(input_files) + " input file(s) but the graph has " +
                            std::to_string(runtime_inputs.size()) + " runtime input(s)");
  }
  NamedValues inputs;
  for (size_t k = 0; k < input_files; ++k) {
    GE_ASSIGN_OR_RETURN(RuntimeValue value,
                        onnx_common::read_value_file(set_dir / ("input_" + std::to_string(k) + ".pb"),
                                                     runtime_inputs[k]->desc()));
    inputs.emplace_back(runtime_inputs[k]->name(), std::move(value));
  }
  std::vector<RuntimeValue> outputs;
  GE_RETURN_IF_ERROR(session.run_values(inputs, outputs));

  const std::vector<Value*>& graph_outputs = session.graph().outputs();
  const size_t output_files = count_files(set_dir, "output_");
  if (output_files != outputs.size()) {
    return invalid_argument("the model produced " + std::to_string(outputs.size()) + " output(s) but " + set_name +
                            " has " + std::to_string(output_files) + " output file(s)");
  }
  for (size_t k = 0; k < output_files; ++k) {
    const std::string name = k < graph_outputs.size() ? graph_outputs[k]->name() : std::string();
    GE_ASSIGN_OR_RETURN(RuntimeValue expected,
                        onnx_common::read_value_file(set_dir / ("output_" + std::to_string(k) + ".pb"),
                                                     graph_outputs[k]->desc()));
    const TensorComparison compared = compare_values(outputs[k], expected, tolerance);
    if (!compared.matches) {
      return invalid_argument("output " + std::to_string(k) + " '" + name + "' (" + set_name + ") differs: " +
                              compared.detail);
    }
  }
  return Status::ok();
}

CaseOutcome run_case_unguarded(const PluginHost& host, const TestCase& test_case, int opt_level,
                               const Tolerance& tolerance, int64_t opset) {
  fs::path model_file = test_case.dir / "model.onnx";
  const std::vector<fs::path> sets = data_sets(test_case.dir);
  if (sets.empty()) return failure(test_case, "no test_data_set_* folder in '" + test_case.dir.string() + "'");

  // A bumped copy lives in a folder of this process, removed when the case ends.
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      if (!dir.empty()) fs::remove_all(dir, ignored);
    }
  } cleanup;
  if (opset != 0) {
    cleanup.dir = fs::temp_directory_path() /
                  ("ge-conformance-" + std::to_string(::getpid()) + "-" + test_case.name);
    Result<fs::path> bumped = write_bumped_model(model_file, opset, cleanup.dir);
    if (!bumped.is_ok()) return failure(test_case, bumped.status().message());
    model_file = *bumped;
  }

  SessionOptions options;
  options.passes.opt_level = opt_level;
  Result<std::unique_ptr<Session>> session = Session::create(host, model_file, options);
  if (!session.is_ok()) return failure(test_case, session.status().message());
  for (const fs::path& set_dir : sets) {
    const Status status = run_data_set(**session, set_dir, tolerance);
    if (!status.is_ok()) return failure(test_case, status.message());
  }
  return {true, {}};
}

}  // namespace

CaseOutcome run_case(const PluginHost& host, const TestCase& test_case, int opt_level, const Tolerance& tolerance,
                     int64_t opset) {
  try {
    return run_case_unguarded(host, test_case, opt_level, tolerance, opset);
  } catch (const std::exception& error) {
    return failure(test_case, std::string("exception: ") + error.what());
  } catch (...) {
    return failure(test_case, "unknown exception");
  }
}

}  // namespace ge::conformance
