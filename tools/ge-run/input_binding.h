#pragma once
/// Binds ge-run's `--input` specs to a graph's runtime inputs: resolves names and
/// positions, loads each source (.npy, .pb, .npz, random) and checks it against the
/// declared type.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/runtime_value.h"
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

/// Checks that `value` fits `desc`: the same kind (tensor, sequence, optional), and for
/// each tensor held (a sequence's every element) what check_input_matches asks.
Status check_value_matches(const std::string& input_name, const std::string& source, const TensorDesc& desc,
                           const RuntimeValue& value);

/// Resolves `specs` against `graph.runtime_inputs()`: a named spec binds that input, the
/// K-th unnamed spec binds the K-th runtime input. A .npz archive given without a name
/// binds each of its arrays to the input of the same name (numpy.savez's positional
/// names arr_K to the K-th input, unless an input has that name); `NAME=FILE.npz` binds
/// the array NAME, or the archive's only array. Unknown names, too many positional
/// inputs, an input bound twice and an unbound input are kInvalidArgument. The result is
/// in runtime-input order. A .npz array is checked against its input and `memory_limit`
/// (0: the machine's physical memory) from its header, before it is inflated.
Result<NamedValues> bind_inputs(const Graph& graph, const std::vector<InputSpec>& specs, size_t memory_limit = 0);

/// The tensors of `values`, for APIs that take tensors only (`purpose` says which, for
/// the message); kUnsupported naming the first value that is a sequence or optional.
Result<NamedTensors> plain_tensors(const NamedValues& values, const std::string& purpose);

}  // namespace ge::tools
