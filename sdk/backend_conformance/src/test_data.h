#pragma once
/// Seeded test data and the comparison every result of the kit goes through.

#include <cstdint>
#include <string>
#include <vector>

#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/tensor.h"
#include "ge/tensor_desc.h"

namespace ge::backend_conformance {

/// Values drawn uniformly from [low, high] (integers: rounded; bool: either) for a static
/// desc of a numeric type, from a generator seeded with `seed`.
Tensor random_tensor(const TensorDesc& desc, double low, double high, uint32_t seed);

/// Random values for every runtime input of `graph`, in [-2, 2], seeded with `seed` plus
/// the input's position.
NamedTensors random_inputs(const Graph& graph, uint32_t seed);

/// Empty when `got` matches `want` (ge::compare_tensors: same dtype and shape; floating
/// point within |got - want| <= atol + rtol * |want|, NaN matching NaN; other types
/// equal); else what differs: the first mismatching element, its index and how many differ.
std::string compare_tensors(const Tensor& got, const Tensor& want, double rtol, double atol);

/// A float tensor's values as a text IR literal list, "[0.5, -1.25, ...]", exact.
std::string literal_of(const Tensor& tensor);

/// A stable seed for a name (the kit's seed mixed with it), so that each case's data
/// does not depend on which other cases run.
uint32_t seed_for(uint32_t seed, const std::string& name);

}  // namespace ge::backend_conformance
