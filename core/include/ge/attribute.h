#pragma once
/// Typed node attributes: int, float, string, tensor, graph, type (a TensorDesc, as in
/// Optional's `type`), and lists of those.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ge/tensor.h"
#include "ge/tensor_desc.h"

namespace ge {

class Graph;

enum class AttributeType { kInt, kFloat, kString, kTensor, kGraph, kInts, kFloats, kStrings, kTensors, kGraphs, kType, kTypes };

/// Name used in text IR: "int", "float", "string", "tensor", "graph", "ints", ...
const char* attribute_type_name(AttributeType type);

class Attribute {
 public:
  using GraphPtr = std::shared_ptr<Graph>;
  using Storage = std::variant<int64_t, float, std::string, Tensor, GraphPtr, std::vector<int64_t>,
                               std::vector<float>, std::vector<std::string>, std::vector<Tensor>,
                               std::vector<GraphPtr>, TensorDesc, std::vector<TensorDesc>>;

  Attribute() : value_(int64_t{0}) {}
  Attribute(int64_t v) : value_(v) {}                           // NOLINT
  Attribute(int v) : value_(int64_t{v}) {}                      // NOLINT
  Attribute(float v) : value_(v) {}                             // NOLINT
  Attribute(std::string v) : value_(std::move(v)) {}           // NOLINT
  Attribute(const char* v) : value_(std::string(v)) {}          // NOLINT
  Attribute(Tensor v) : value_(std::move(v)) {}                 // NOLINT
  Attribute(GraphPtr v) : value_(std::move(v)) {}               // NOLINT
  Attribute(std::vector<int64_t> v) : value_(std::move(v)) {}   // NOLINT
  Attribute(std::vector<float> v) : value_(std::move(v)) {}     // NOLINT
  Attribute(std::vector<std::string> v) : value_(std::move(v)) {}  // NOLINT
  Attribute(std::vector<Tensor> v) : value_(std::move(v)) {}    // NOLINT
  Attribute(std::vector<GraphPtr> v) : value_(std::move(v)) {}  // NOLINT
  Attribute(TensorDesc v) : value_(std::move(v)) {}             // NOLINT
  Attribute(std::vector<TensorDesc> v) : value_(std::move(v)) {}  // NOLINT

  AttributeType type() const { return static_cast<AttributeType>(value_.index()); }
  const Storage& storage() const { return value_; }

  template <typename T>
  bool holds() const { return std::holds_alternative<T>(value_); }
  template <typename T>
  const T& get() const { return std::get<T>(value_); }
  template <typename T>
  T& get() { return std::get<T>(value_); }

 private:
  Storage value_;
};

}  // namespace ge
