#pragma once
/// Binds ge-run's `--input` specs to a graph's runtime inputs: resolves names and
/// positions, loads each source and checks it against the declared type.

#include <cstdint>
#include <vector>

#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/status.h"
#include "ge/tensor.h"
#include "ge/tensor_desc.h"
#include "options.h"

namespace ge::tools {

/// Deterministic pseudo-random data for `desc` (which must be a static tensor type):
/// floats uniform in [-1, 1), integers in [0, 4], bools 0/1. The same `seed` gives the
/// same tensor on every platform. kInvalidArgument for a non-static shape, kUnsupported
/// for strings and complex types.
Result<Tensor> random_tensor(const TensorDesc& desc, uint64_t seed);

/// Checks that `tensor` fits `desc`: same dtype, same rank, equal static dims. The
/// message names `input_name` and `source`.
Status check_input_matches(const std::string& input_name, const std::string& source, const TensorDesc& desc,
                           const Tensor& tensor);

/// Resolves `specs` against `graph.runtime_inputs()`: a named spec binds that input, the
/// K-th unnamed spec binds the K-th runtime input. Unknown names, too many positional
/// inputs, an input bound twice and an unbound input are kInvalidArgument. The result is
/// in runtime-input order.
Result<NamedTensors> bind_inputs(const Graph& graph, const std::vector<InputSpec>& specs);

}  // namespace ge::tools
