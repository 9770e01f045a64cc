#pragma once
/// Op schemas and shape/type inference. Op libraries (plugins) provide them; the core
/// holds a registry that dispatches by (domain, op type, opset version).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge {

/// How autofusion may group an op.
enum class FusionKind { kOpaque, kElementwise, kBroadcast, kInjective, kReduction };

/// An output that may be written over the bytes of one of the op's inputs: every output
/// element depends only on the input element at the same position (other inputs may
/// broadcast), so the kernel may run with both at one address.
struct InPlacePair {
  static constexpr int kEveryInput = -1;  ///< any input (variadic ops such as Sum)
  int input = kEveryInput;                ///< an input index, or kEveryInput
  int output = 0;
};

/// What the registry knows about one op version.
struct OpSchemaInfo {
  std::string domain;
  std::string op_type;
  int64_t since_version = 1;
  int min_inputs = 0, max_inputs = 0;    ///< max_inputs is INT32_MAX for variadic
  int min_outputs = 0, max_outputs = 0;
  FusionKind fusion_kind = FusionKind::kOpaque;
  bool deprecated = false;
  /// Where the memory planner may run the op in place (over an input that dies at it and
  /// holds as many bytes as the output). The planner places output 0 only, of nodes whose
  /// other outputs are unused.
  std::vector<InPlacePair> in_place{};
  /// Output 0 is input 0's bytes unchanged (a reshape): the planner may place it at the
  /// input's address, and the runtime then runs no kernel for it.
  bool is_view = false;

  /// Whether `in_place` lets output `output_index` take input `input_index`'s bytes.
  bool may_run_in_place(size_t input_index, size_t output_index) const;
};

/// Data the inference of one node may look at besides static descs: the content of an
/// input when it is known (an initializer, or a run-time value in per-op execution).
/// Returns null when unknown.
using InputDataProvider = std::function<const Tensor*(const Node& node, size_t input_index)>;

class OpRegistry;

/// An op library: schemas plus inference. Implemented by op_library plugins.
class OpLibrary {
 public:
  virtual ~OpLibrary() = default;
  virtual std::string name() const = 0;
  /// The schema this library has for `op_type` in `domain` at `opset_version`, or null.
  virtual const OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type,
                                          int64_t opset_version) const = 0;
  /// Infers output descs of `node` from its input descs and attributes and writes them
  /// into node.outputs(). Subgraphs are inferred through `registry`.
  virtual Status infer(Node& node, int64_t opset_version, const InputDataProvider& data,
                       const OpRegistry& registry) const = 0;
};

/// All op libraries of a session. Not thread-safe for mutation; const use is.
class OpRegistry {
 public:
  /// Adds a library. Later libraries are consulted first, so a custom library can
  /// override a standard op.
  void add_library(std::shared_ptr<const OpLibrary> library);
  const std::vector<std::shared_ptr<const OpLibrary>>& libraries() const { return libraries_; }

  /// The library and schema for `node` under its graph's opset imports, or null.
  const OpLibrary* library_for(const Node& node) const;
  const OpSchemaInfo* find_schema(const Node& node) const;

  /// Infers one node. Unknown ops are kUnsupported errors naming op and domain.
  Status infer_node(Node& node, const InputDataProvider& data = {}) const;
  /// Infers every node of `graph` in topological order; initializer contents are
  /// offered as input data.
  Status infer_graph(Graph& graph, const InputDataProvider& data = {}) const;

 private:
  std::vector<std::shared_ptr<const OpLibrary>> libraries_;
};

}  // namespace ge
