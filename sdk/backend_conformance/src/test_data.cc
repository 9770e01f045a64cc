#include "test_data.h"

#include <cmath>
#include <cstdio>
#include <random>

#include "ge/tensor_compare.h"

namespace ge::backend_conformance {

Tensor random_tensor(const TensorDesc& desc, double low, double high, uint32_t seed) {
  Tensor tensor = Tensor::zeros(desc.dtype, desc.static_dims());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(low, high);
  const int64_t count = tensor.element_count();
  auto fill = [&]<typename T>(T* data) {
    for (int64_t i = 0; i < count; ++i) {
      const double v = value(rng);
      if constexpr (std::is_floating_point_v<T>) {
        data[i] = static_cast<T>(v);
      } else if constexpr (std::is_same_v<T, bool>) {
        data[i] = v >= (low + high) / 2;
      } else {
        data[i] = static_cast<T>(std::llround(v));
      }
    }
  };
  switch (desc.dtype) {
    case DataType::kFloat32: fill(tensor.data<float>()); break;
    case DataType::kFloat64: fill(tensor.data<double>()); break;
    case DataType::kInt8: fill(tensor.data<int8_t>()); break;
    case DataType::kUInt8: fill(tensor.data<uint8_t>()); break;
    case DataType::kInt16: fill(tensor.data<int16_t>()); break;
    case DataType::kInt32: fill(tensor.data<int32_t>()); break;
    case DataType::kInt64: fill(tensor.data<int64_t>()); break;
    case DataType::kBool: fill(tensor.data<bool>()); break;
    default: break;  // other types stay zero
  }
  return tensor;
}

NamedTensors random_inputs(const Graph& graph, uint32_t seed) {
  NamedTensors inputs;
  uint32_t position = 0;
  for (const Value* input : graph.runtime_inputs()) {
    inputs.emplace_back(input->name(), random_tensor(input->desc(), -2.0, 2.0, seed + position++));
  }
  return inputs;
}

std::string compare_tensors(const Tensor& got, const Tensor& want, double rtol, double atol) {
  const TensorComparison comparison = ge::compare_tensors(got, want, Tolerance{.rtol = rtol, .atol = atol});
  return comparison.matches ? std::string() : comparison.detail;
}

std::string literal_of(const Tensor& tensor) {
  std::string text = "[";
  char number[40];
  for (int64_t i = 0; i < tensor.element_count(); ++i) {
    std::snprintf(number, sizeof number, "%.9g", tensor.scalar_as_double(i));
    text += (i > 0 ? ", " : "") + std::string(number);
  }
  return text + "]";
}

uint32_t seed_for(uint32_t seed, const std::string& name) {
  uint32_t hash = 2166136261u;  // FNV-1a
  for (const char c : name) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  return hash ^ seed;
}

}  // namespace ge::backend_conformance
