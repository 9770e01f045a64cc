// Comparing and hashing tensors and attributes by content (ge/plugin_api/attribute_equality.h).
#include "ge/plugin_api/attribute_equality.h"

#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ge {

bool tensors_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (!a.defined()) return true;
  if (a.dtype() == DataType::kString) {
    for (int64_t i = 0; i < a.element_count(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    }
    return true;
  }
  return a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

size_t hash_tensor(const Tensor& tensor) {
  size_t h = std::hash<int>()(static_cast<int>(tensor.dtype()));
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (int64_t d : tensor.shape()) mix(std::hash<int64_t>()(d));
  if (!tensor.defined()) return h;
  if (tensor.dtype() == DataType::kString) {
    for (int64_t i = 0; i < tensor.element_count(); ++i) mix(std::hash<std::string>()(tensor.data<std::string>()[i]));
    return h;
  }
  mix(std::hash<std::string_view>()(
      std::string_view(static_cast<const char*>(tensor.raw_data()), tensor.byte_size())));
  return h;
}

bool attributes_equal(const Attribute& a, const Attribute& b) {
  if (a.type() != b.type()) {
    // An int written where a float was expected (or the reverse) compares by value.
    if (a.holds<int64_t>() && b.holds<float>()) return static_cast<float>(a.get<int64_t>()) == b.get<float>();
    if (a.holds<float>() && b.holds<int64_t>()) return a.get<float>() == static_cast<float>(b.get<int64_t>());
    return false;
  }
  if (a.holds<Tensor>()) return tensors_equal(a.get<Tensor>(), b.get<Tensor>());
  if (a.holds<std::vector<Tensor>>()) {
    const auto& x = a.get<std::vector<Tensor>>();
    const auto& y = b.get<std::vector<Tensor>>();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!tensors_equal(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.holds<float>()) {
    // Bitwise, so that NaN attributes compare equal to themselves.
    float x = a.get<float>(), y = b.get<float>();
    return std::memcmp(&x, &y, sizeof(float)) == 0;
  }
  if (a.holds<std::vector<float>>()) {
    const auto& x = a.get<std::vector<float>>();
    const auto& y = b.get<std::vector<float>>();
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
  }
  if (a.holds<int64_t>()) return a.get<int64_t>() == b.get<int64_t>();
  if (a.holds<std::string>()) return a.get<std::string>() == b.get<std::string>();
  if (a.holds<Attribute::GraphPtr>()) return a.get<Attribute::GraphPtr>() == b.get<Attribute::GraphPtr>();
  if (a.holds<std::vector<int64_t>>()) return a.get<std::vector<int64_t>>() == b.get<std::vector<int64_t>>();
  if (a.holds<std::vector<std::string>>()) {
    return a.get<std::vector<std::string>>() == b.get<std::vector<std::string>>();
  }
  if (a.holds<TensorDesc>()) return a.get<TensorDesc>() == b.get<TensorDesc>();
  if (a.holds<std::vector<TensorDesc>>()) return a.get<std::vector<TensorDesc>>() == b.get<std::vector<TensorDesc>>();
  // Graphs compare by identity: two bodies are only known to agree when they are one.
  return a.get<std::vector<Attribute::GraphPtr>>() == b.get<std::vector<Attribute::GraphPtr>>();
}

}  // namespace ge
