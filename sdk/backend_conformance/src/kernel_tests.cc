// Kernels: every generated case the backend supports runs on it and on the reference, on
// the same seeded inputs, and must agree within tolerance, write every output element and
// nothing past its outputs. One test per op; an op the backend does not support is skipped
// (not a failure), and Kernels.Coverage lists them and needs at least one supported case.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "device_graph.h"
#include "kernel_cases.h"
#include "suite.h"
#include "test_data.h"

namespace ge::backend_conformance {
namespace {

/// Seeded inputs for every runtime input of `graph`, in the case's ranges.
NamedTensors case_inputs(const KernelCase& kernel_case, const Graph& graph, uint32_t seed) {
  NamedTensors inputs;
  for (const Value* input : graph.runtime_inputs()) {
    double low = -2, high = 2;
    for (const InputRange& range : kernel_case.ranges) {
      if (range.name == input->name()) low = range.low, high = range.high;
    }
    const uint32_t input_seed = seed_for(seed, kernel_case.op + "/" + kernel_case.label + "/" + input->name());
    inputs.emplace_back(input->name(), random_tensor(input->desc(), low, high, input_seed));
  }
  return inputs;
}

enum class Outcome { kPassed, kFailed, kUnsupported, kNoReference };

/// Runs one case; records gtest failures for a mismatch. `note` says why it did not run.
Outcome run_case(Environment& env, const KernelCase& kernel_case, std::string* note) {
  const std::string name = kernel_case.op + " (" + kernel_case.label + ")";
  SCOPED_TRACE(name);
  const std::string text = kernel_case.graph_text(env.config().seed);
  Result<std::unique_ptr<Graph>> graph = parse_and_infer(text, env.ops());
  if (!graph.is_ok()) {
    ADD_FAILURE() << "the kit's case does not infer with the loaded op libraries: " << graph.status().to_string()
                  << "\n" << text;
    return Outcome::kFailed;
  }
  if (std::string missing = unsupported_nodes(env.backend(), **graph); !missing.empty()) {
    *note = missing;
    return Outcome::kUnsupported;
  }
  if (std::string missing = unsupported_nodes(env.reference(), **graph); !missing.empty()) {
    *note = "reference backend '" + env.reference().name() + "': " + missing;
    return Outcome::kNoReference;
  }
  const NamedTensors inputs = case_inputs(kernel_case, **graph, env.config().seed);
  std::vector<std::string> outputs;
  for (const Value* output : (*graph)->outputs()) outputs.push_back(output->name());
  std::unique_ptr<Graph> copy = (*graph)->clone();

  auto run_on = [&](std::unique_ptr<Graph> g, Backend& backend, std::unique_ptr<DeviceGraph>* loaded) -> Status {
    GE_ASSIGN_OR_RETURN(*loaded, DeviceGraph::load(std::move(g), backend));
    for (const auto& [input, tensor] : inputs) GE_RETURN_IF_ERROR((*loaded)->write(input, tensor));
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, backend.device().create_stream());
    return (*loaded)->run(*stream);
  };
  std::unique_ptr<DeviceGraph> got, want;
  if (Status status = run_on(std::move(copy), env.reference(), &want); !status.is_ok()) {
    *note = "reference backend '" + env.reference().name() + "' failed: " + status.to_string();
    return Outcome::kNoReference;
  }
  if (Status status = run_on(std::move(graph).value(), env.backend(), &got); !status.is_ok()) {
    ADD_FAILURE() << "supported, but running it failed: " << status.to_string() << "\n" << text;
    return Outcome::kFailed;
  }
  const double rtol = std::max(kernel_case.rtol, env.config().rtol);
  const double atol = std::max(kernel_case.atol, env.config().atol);
  bool passed = true;
  for (const std::string& output : outputs) {
    Result<Tensor> mine = got->read(output), theirs = want->read(output);
    if (!mine.is_ok() || !theirs.is_ok()) {
      ADD_FAILURE() << "reading output '" << output << "': " << mine.status().to_string() << " "
                    << theirs.status().to_string();
      return Outcome::kFailed;
    }
    const std::string difference = compare_tensors(*mine, *theirs, rtol, atol);
    if (!difference.empty()) {
      ADD_FAILURE() << "output '" << output << "' differs from reference '" << env.reference().name()
                    << "': " << difference << "\n" << text;
      passed = false;
    }
  }
  if (Status guards = got->check_guards(); !guards.is_ok()) {
    ADD_FAILURE() << guards.message();
    passed = false;
  }
  return passed ? Outcome::kPassed : Outcome::kFailed;
}

void run_op(Environment& env, const std::string& op) {
  int ran = 0;
  std::string skipped;
  for (const KernelCase& kernel_case : kernel_cases()) {
    if (kernel_case.op != op) continue;
    std::string note;
    const Outcome outcome = run_case(env, kernel_case, &note);
    if (outcome == Outcome::kPassed || outcome == Outcome::kFailed) {
      ++ran;
    } else {
      skipped += "\n  " + kernel_case.label + ": " + note;
    }
  }
  if (!skipped.empty()) ::testing::Test::RecordProperty("skipped_cases", skipped);
  if (ran == 0) GTEST_SKIP() << "not supported by " << env.backend().name() << ": " << op << skipped;
  if (!skipped.empty()) std::printf("[ conformance ] %s: cases not run:%s\n", op.c_str(), skipped.c_str());
}

void coverage(Environment& env) {
  std::string supported, unsupported_ops;
  int supported_cases = 0, total = 0;
  for (const std::string& op : kernel_case_ops()) {
    int yes = 0, cases = 0;
    for (const KernelCase& kernel_case : kernel_cases()) {
      if (kernel_case.op != op) continue;
      ++cases;
      Result<std::unique_ptr<Graph>> graph = parse_and_infer(kernel_case.graph_text(env.config().seed), env.ops());
      ASSERT_TRUE(graph.is_ok()) << op << " (" << kernel_case.label << "): " << graph.status().to_string();
      if (unsupported_nodes(env.backend(), **graph).empty()) ++yes;
    }
    supported_cases += yes;
    total += cases;
    if (yes > 0) {
      supported += (supported.empty() ? "" : ", ") + op + (yes < cases ? " (" + std::to_string(yes) + "/" +
                                                                            std::to_string(cases) + " cases)"
                                                                      : "");
    } else {
      unsupported_ops += (unsupported_ops.empty() ? "" : ", ") + op;
    }
  }
  const std::string& backend = env.backend().name();
  std::printf("[ conformance ] %d of %d kernel cases supported by %s\n", supported_cases, total, backend.c_str());
  std::printf("[ conformance ] supported by %s: %s\n", backend.c_str(), supported.empty() ? "none" : supported.c_str());
  std::printf("[ conformance ] not supported by %s: %s\n", backend.c_str(),
              unsupported_ops.empty() ? "none" : unsupported_ops.c_str());
  ::testing::Test::RecordProperty("supported", supported);
  ::testing::Test::RecordProperty("not_supported", unsupported_ops);
  EXPECT_GT(supported_cases, 0) << "backend '" << backend << "' supports none of the kit's " << total
                                << " kernel cases (not supported: " << unsupported_ops << ")";
}

}  // namespace

std::vector<TestEntry> kernel_tests() {
  std::vector<TestEntry> tests;
  tests.push_back({"Kernels", "Coverage", coverage});
  for (const std::string& op : kernel_case_ops()) {
    tests.push_back({"Kernels", op, [op](Environment& env) { run_op(env, op); }});
  }
  return tests;
}

}  // namespace ge::backend_conformance
