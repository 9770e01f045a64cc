#pragma once
/// The ONNX standard op set as a GE op library: schemas and type/shape inference come
/// from libonnx's OpSchemaRegistry (opsets up to 17), and for opsets 18 to 23 from the
/// schemas of newer_opsets.h, adapted to GE's IR.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "ge/op_registry.h"

namespace onnx {
class OpSchema;
}

namespace ge::onnx_ops {

struct NewerVersion;

/// Serves every domain libonnx knows ("" / "ai.onnx", "ai.onnx.ml", ...). All const
/// members are thread-safe.
class OnnxOpLibrary final : public OpLibrary {
 public:
  std::string name() const override { return "onnx_std"; }

  /// The schema libonnx resolves for `opset_version` (the newest with since_version <=
  /// it), or null. The returned pointer lives as long as this library.
  const OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type,
                                  int64_t opset_version) const override;

  /// Checks the input/output counts against the schema (and the preconditions libonnx
  /// assumes), runs libonnx's inference function (or infers through the op's function
  /// body when it has no function; ops with neither keep their outputs), adds what
  /// libonnx 1.12 leaves out (see supplement_inference) and merges the result into the
  /// node's output descs (see merge_inferred_desc); nothing is written when any output
  /// fails to merge. Errors name the node, the op and libonnx's message; an op libonnx
  /// does not know is kUnsupported.
  Status infer(Node& node, int64_t opset_version, const InputDataProvider& data,
               const OpRegistry& registry) const override;

 private:
  mutable std::mutex mutex_;
  // Keyed by libonnx's schema object, whose address is stable for the process.
  mutable std::map<const onnx::OpSchema*, std::unique_ptr<OpSchemaInfo>> infos_;
  // Versions of opsets 18-23 that GE does not run (no schema), keyed by their table entry.
  mutable std::map<const NewerVersion*, std::unique_ptr<OpSchemaInfo>> unsupported_infos_;
};

}  // namespace ge::onnx_ops
