#pragma once
/// The Open Inference Protocol (KServe v2) data plane over REST/JSON: tensors to and from
/// JSON, model metadata, datatypes. Every error is a Status whose message the server
/// returns verbatim in {"error": ...}.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/status.h"
#include "ge/tensor.h"

namespace ge::serve {

/// The protocol's datatype name ("FP32", "INT64", ...) of a GE dtype; empty if none.
std::string datatype_name(DataType dtype);

/// {"name", "datatype", "shape"} of each runtime input or output of `graph` (-1 for a
/// dynamic dim).
nlohmann::json tensor_metadata(const Value& value);

/// A zeroed tensor for request input `name` of `datatype` and `shape`, checked against the
/// model: a known input, its datatype, its rank and static dims, a sane element count.
Result<Tensor> checked_input_tensor(const Graph& graph, const std::string& name, const std::string& datatype,
                                    const std::vector<int64_t>& shape);

/// Every runtime input of `graph` given exactly once in `tensors`.
Status check_all_inputs(const Graph& graph, const NamedTensors& tensors);

/// The inputs of an infer request body, checked against the model's inputs: every input
/// given once, known, of the model's datatype, its shape the model's (static dims) and
/// the data's element count. The binary extension: an input with
/// "parameters": {"binary_data_size": N} takes its bytes from `binary` (the body after the
/// JSON header), in order.
Result<NamedTensors> parse_inputs(const nlohmann::json& request, const Graph& graph, std::string_view binary);

/// The names of the outputs the request asks for (all when it names none), in graph
/// order, and for each whether it asks for binary data.
struct RequestedOutput {
  size_t index;
  bool binary;
};
Result<std::vector<RequestedOutput>> requested_outputs(const nlohmann::json& request, const Graph& graph);

/// The JSON of one output tensor (with "data", or "parameters": {"binary_data_size": N}
/// and its bytes appended to `binary`).
Result<nlohmann::json> output_json(const std::string& name, const Tensor& tensor, bool binary_data, std::string& binary);

}  // namespace ge::serve
