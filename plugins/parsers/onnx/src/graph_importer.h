#pragma once
/// Converts a parsed ONNX ModelProto into a ge::Graph.

#include <filesystem>
#include <memory>

#include <onnx/onnx_pb.h>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge::onnx_parser {

/// Builds the Graph for `model`: opset imports, inputs, initializers (Constant nodes
/// become initializers too), nodes with every attribute (subgraphs imported recursively,
/// outer-scope names captured), value_info descs and outputs. External tensor data is
/// resolved against `base_dir` (empty: refused). Nodes may appear in any order; a cycle
/// is an error. Errors name the graph, node and value; they do not name the file (the
/// caller adds it).
Result<std::unique_ptr<Graph>> import_model(const onnx::ModelProto& model,
                                            const std::filesystem::path& base_dir);

/// The newest default-domain (ai.onnx) opset this build accepts (onnx_common's).
int64_t max_supported_onnx_opset();

}  // namespace ge::onnx_parser
