#include "test_data.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>

namespace ge::backend_conformance {
namespace {

bool is_floating(DataType type) { return type == DataType::kFloat32 || type == DataType::kFloat64; }

double element(const Tensor& tensor, int64_t i) { return tensor.scalar_as_double(i); }

/// Types compared element by element (others byte by byte).
bool comparable(DataType type) {
  switch (type) {
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kBool:
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16:
    case DataType::kUInt16:
    case DataType::kInt32:
    case DataType::kUInt32:
    case DataType::kInt64:
    case DataType::kUInt64:
      return true;
    default:
      return false;
  }
}

}  // namespace

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
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    return "got " + got.to_string(0) + ", want " + want.to_string(0);
  }
  const bool floating = is_floating(want.dtype());
  if (!comparable(want.dtype())) {
    if (std::memcmp(got.raw_data(), want.raw_data(), want.byte_size()) == 0) return {};
    return "the bytes differ (" + want.to_string(0) + ")";
  }
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    bool same = false;
    if (floating) {
      const double g = element(got, i), w = element(want, i);
      same = (std::isnan(g) && std::isnan(w)) || g == w || std::abs(g - w) <= atol + rtol * std::abs(w);
    } else {
      same = got.scalar_as_int64(i) == want.scalar_as_int64(i);
    }
    if (!same && mismatches++ == 0) first = i;
  }
  if (mismatches == 0) return {};
  std::ostringstream text;
  text.precision(9);
  text << mismatches << " of " << want.element_count() << " elements differ; first at flat index " << first << ": got "
       << element(got, first) << ", want " << element(want, first);
  if (floating) text << " (tolerance " << atol << " + " << rtol << " * |want|)";
  return text.str();
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
