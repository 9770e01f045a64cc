#pragma once
/// Graph → ONNX ModelProto: writes GE's IR (typically the optimised graph, after the
/// passes) as an ONNX model that Netron and the onnx Python package open.
///
/// - Nodes in a topological order, each in its own domain: ONNX ops in the default domain,
///   GE's fused ops in "ge" (FusedConv, TransData, ...) and "ge_autofuse" (Fused); every
///   domain a node uses, subgraphs included, gets an opset_import (the graph's version,
///   else 1).
/// - Initializers as TensorProtos (raw_data); graph inputs and outputs with their types
///   and shapes; value_info for every other named node output.
/// - A value stored in a non-plain format (TensorDesc::format, e.g. "nChw8c" after layout
///   assignment) has "ge.format: FORMAT" as its value_info doc_string and a metadata_props
///   entry "ge.format:NAME" = FORMAT; the types keep the logical shape.
/// - Names are kept; a name several values share gets a "__N" suffix on the later ones,
///   as ONNX wants each value named once.

#include <filesystem>
#include <map>
#include <string>

#include <onnx/onnx_pb.h>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge::onnx_common {

struct GraphExportOptions {
  std::string producer_name = "ge";
  std::string producer_version;
  std::string doc_string;
  /// Extra model metadata_props (e.g. the backend and optimisation level).
  std::map<std::string, std::string> metadata;
};

/// The model for `graph` (see the file comment). Errors: a cycle, or an attribute that
/// has no ONNX form, naming the node.
Result<onnx::ModelProto> graph_to_model_proto(const Graph& graph, const GraphExportOptions& options = {});

/// graph_to_model_proto serialised to `path`. Errors name the file.
Status write_onnx_model(const Graph& graph, const std::filesystem::path& path,
                        const GraphExportOptions& options = {});

}  // namespace ge::onnx_common
