#include "protocol.h"

#include <cstring>
#include <map>

#include "ge/minifloat.h"
#include "ge/shape_arithmetic.h"

namespace ge::serve {
namespace {

using nlohmann::json;

const std::map<DataType, std::string>& datatype_names() {
  static const std::map<DataType, std::string> names = {
      {DataType::kBool, "BOOL"},     {DataType::kUInt8, "UINT8"},   {DataType::kUInt16, "UINT16"},
      {DataType::kUInt32, "UINT32"}, {DataType::kUInt64, "UINT64"}, {DataType::kInt8, "INT8"},
      {DataType::kInt16, "INT16"},   {DataType::kInt32, "INT32"},   {DataType::kInt64, "INT64"},
      {DataType::kFloat16, "FP16"},  {DataType::kFloat32, "FP32"},  {DataType::kFloat64, "FP64"},
      {DataType::kBFloat16, "BF16"}, {DataType::kString, "BYTES"}};
  return names;
}

/// Appends the leaves of a (possibly nested) JSON array to `out`.
Status flatten(const json& data, std::vector<const json*>& out, size_t depth = 0) {
  if (!data.is_array()) {
    out.push_back(&data);
    return Status::ok();
  }
  if (depth > 64) return invalid_argument("'data' is nested deeper than 64 levels");
  for (const json& item : data) GE_RETURN_IF_ERROR(flatten(item, out, depth + 1));
  return Status::ok();
}

template <typename T>
Status fill_numbers(Tensor& tensor, const std::vector<const json*>& leaves, const std::string& name) {
  T* out = tensor.data<T>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json& v = *leaves[i];
    if constexpr (std::is_same_v<T, bool>) {
      if (!v.is_boolean()) return invalid_argument("input '" + name + "': element " + std::to_string(i) + " is not a bool");
      out[i] = v.get<bool>();
    } else {
      if (!v.is_number()) return invalid_argument("input '" + name + "': element " + std::to_string(i) + " is not a number");
      if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer()) {
          return invalid_argument("input '" + name + "': element " + std::to_string(i) + " is not an integer");
        }
        if (v.is_number_unsigned()) {
          const uint64_t u = v.get<uint64_t>();
          if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
            return invalid_argument("input '" + name + "': element " + std::to_string(i) + " is out of its datatype's range");
          }
          out[i] = static_cast<T>(u);
        } else {
          const int64_t s = v.get<int64_t>();
          if (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
              (s > 0 && static_cast<uint64_t>(s) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
            return invalid_argument("input '" + name + "': element " + std::to_string(i) + " is out of its datatype's range");
          }
          out[i] = static_cast<T>(s);
        }
      } else {
        out[i] = static_cast<T>(v.get<double>());
      }
    }
  }
  return Status::ok();
}

Status fill_halves(Tensor& tensor, const std::vector<const json*>& leaves, const std::string& name, bool bfloat) {
  auto* out = static_cast<uint16_t*>(tensor.raw_data());
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i]->is_number()) return invalid_argument("input '" + name + "': element " + std::to_string(i) + " is not a number");
    const double v = leaves[i]->get<double>();
    out[i] = bfloat ? bfloat16_from_double(v) : float16_from_double(v);
  }
  return Status::ok();
}

Status fill(Tensor& tensor, const std::vector<const json*>& leaves, const std::string& name) {
  switch (tensor.dtype()) {
    case DataType::kBool: return fill_numbers<bool>(tensor, leaves, name);
    case DataType::kUInt8: return fill_numbers<uint8_t>(tensor, leaves, name);
    case DataType::kUInt16: return fill_numbers<uint16_t>(tensor, leaves, name);
    case DataType::kUInt32: return fill_numbers<uint32_t>(tensor, leaves, name);
    case DataType::kUInt64: return fill_numbers<uint64_t>(tensor, leaves, name);
    case DataType::kInt8: return fill_numbers<int8_t>(tensor, leaves, name);
    case DataType::kInt16: return fill_numbers<int16_t>(tensor, leaves, name);
    case DataType::kInt32: return fill_numbers<int32_t>(tensor, leaves, name);
    case DataType::kInt64: return fill_numbers<int64_t>(tensor, leaves, name);
    case DataType::kFloat32: return fill_numbers<float>(tensor, leaves, name);
    case DataType::kFloat64: return fill_numbers<double>(tensor, leaves, name);
    case DataType::kFloat16: return fill_halves(tensor, leaves, name, false);
    case DataType::kBFloat16: return fill_halves(tensor, leaves, name, true);
    case DataType::kString: {
      auto* out = tensor.data<std::string>();
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i]->is_string()) return invalid_argument("input '" + name + "': element " + std::to_string(i) + " is not a string");
        out[i] = leaves[i]->get<std::string>();
      }
      return Status::ok();
    }
    default: return invalid_argument("input '" + name + "': its datatype is not served");
  }
}

template <typename T>
json numbers(const Tensor& t) {
  json data = json::array();
  for (const T& v : t.values<T>()) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      data.push_back(static_cast<double>(v));
    } else {
      data.push_back(v);
    }
  }
  return data;
}

Result<json> data_json(const Tensor& t) {
  switch (t.dtype()) {
    case DataType::kBool: return numbers<bool>(t);
    case DataType::kUInt8: return numbers<uint8_t>(t);
    case DataType::kUInt16: return numbers<uint16_t>(t);
    case DataType::kUInt32: return numbers<uint32_t>(t);
    case DataType::kUInt64: return numbers<uint64_t>(t);
    case DataType::kInt8: return numbers<int8_t>(t);
    case DataType::kInt16: return numbers<int16_t>(t);
    case DataType::kInt32: return numbers<int32_t>(t);
    case DataType::kInt64: return numbers<int64_t>(t);
    case DataType::kFloat32: return numbers<float>(t);
    case DataType::kFloat64: return numbers<double>(t);
    case DataType::kString: return numbers<std::string>(t);
    case DataType::kFloat16:
    case DataType::kBFloat16: {
      json data = json::array();
      const auto* bits = static_cast<const uint16_t*>(t.raw_data());
      for (int64_t i = 0; i < t.element_count(); ++i) {
        data.push_back(t.dtype() == DataType::kFloat16 ? float16_to_float(bits[i]) : bfloat16_to_float(bits[i]));
      }
      return data;
    }
    default: return unsupported("an output of dtype " + std::string(data_type_name(t.dtype())) + " is not served");
  }
}

const Value* find_input(const Graph& graph, const std::string& name) {
  for (const Value* v : graph.runtime_inputs()) {
    if (v->name() == name) return v;
  }
  return nullptr;
}

}  // namespace

std::string datatype_name(DataType dtype) {
  auto it = datatype_names().find(dtype);
  return it == datatype_names().end() ? std::string() : it->second;
}

nlohmann::json tensor_metadata(const Value& value) {
  json shape = json::array();
  if (value.desc().shape) {
    for (const Dim& d : *value.desc().shape) shape.push_back(d.is_static() ? d.value : -1);
  } else {
    shape.push_back(-1);
  }
  return {{"name", value.name()}, {"datatype", datatype_name(value.desc().dtype)}, {"shape", shape}};
}

Result<NamedTensors> parse_inputs(const json& request, const Graph& graph, std::string_view binary) {
  if (!request.is_object()) return invalid_argument("the request body is not a JSON object");
  auto inputs_it = request.find("inputs");
  if (inputs_it == request.end() || !inputs_it->is_array()) return invalid_argument("the request has no 'inputs' array");
  NamedTensors tensors;
  size_t binary_offset = 0;
  for (const json& input : *inputs_it) {
    if (!input.is_object()) return invalid_argument("an entry of 'inputs' is not an object");
    if (!input.contains("name") || !input["name"].is_string()) return invalid_argument("an input has no 'name'");
    const std::string name = input["name"].get<std::string>();
    if (!input.contains("datatype") || !input["datatype"].is_string()) {
      return invalid_argument("input '" + name + "' has no 'datatype'");
    }
    if (!input.contains("shape") || !input["shape"].is_array()) return invalid_argument("input '" + name + "' has no 'shape'");
    std::vector<int64_t> shape;
    for (const json& d : input["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        return invalid_argument("input '" + name + "': the shape's dims must be non-negative integers");
      }
      shape.push_back(d.get<int64_t>());
    }
    GE_ASSIGN_OR_RETURN(Tensor tensor, checked_input_tensor(graph, name, input["datatype"].get<std::string>(), shape));
    const DataType dtype = tensor.dtype();
    const size_t element = element_size(dtype);
    const std::optional<int64_t> count = tensor.element_count();
    const json* parameters = input.contains("parameters") ? &input["parameters"] : nullptr;
    if (parameters != nullptr && parameters->is_object() && parameters->contains("binary_data_size")) {
      const json& size_json = (*parameters)["binary_data_size"];
      if (!size_json.is_number_unsigned()) return invalid_argument("input '" + name + "': binary_data_size is not a size");
      const uint64_t size = size_json.get<uint64_t>();
      if (dtype == DataType::kString) return invalid_argument("input '" + name + "': BYTES in binary form are not served");
      if (size != static_cast<uint64_t>(*count) * element) {
        return invalid_argument("input '" + name + "': binary_data_size " + std::to_string(size) + " is not the " +
                                std::to_string(static_cast<uint64_t>(*count) * element) + " bytes of its shape");
      }
      if (binary_offset + size > binary.size()) {
        return invalid_argument("input '" + name + "': the body holds " + std::to_string(binary.size() - binary_offset) +
                                " binary bytes, not " + std::to_string(size));
      }
      if (size != 0) std::memcpy(tensor.raw_data(), binary.data() + binary_offset, size);
      binary_offset += size;
      tensors.emplace_back(name, std::move(tensor));
      continue;
    }
    if (!input.contains("data")) return invalid_argument("input '" + name + "' has no 'data'");
    std::vector<const json*> leaves;
    GE_RETURN_IF_ERROR(flatten(input["data"], leaves));
    if (leaves.size() != static_cast<size_t>(*count)) {
      return invalid_argument("input '" + name + "' has " + std::to_string(leaves.size()) + " elements, its shape " +
                              std::to_string(*count));
    }
    GE_RETURN_IF_ERROR(fill(tensor, leaves, name));
    tensors.emplace_back(name, std::move(tensor));
  }
  if (binary_offset != binary.size()) {
    return invalid_argument("the body has " + std::to_string(binary.size() - binary_offset) + " binary bytes no input claims");
  }
  GE_RETURN_IF_ERROR(check_all_inputs(graph, tensors));
  return tensors;
}

Status check_all_inputs(const Graph& graph, const NamedTensors& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (tensors[i].first == tensors[j].first) return invalid_argument("input '" + tensors[i].first + "' is given twice");
    }
  }
  for (const Value* v : graph.runtime_inputs()) {
    bool given = false;
    for (const auto& [n, t] : tensors) given = given || n == v->name();
    if (!given) return invalid_argument("the request lacks input '" + v->name() + "'");
  }
  return Status::ok();
}

Result<Tensor> checked_input_tensor(const Graph& graph, const std::string& name, const std::string& datatype,
                                    const std::vector<int64_t>& shape) {
  const Value* model_input = find_input(graph, name);
  if (model_input == nullptr) {
    std::string known;
    for (const Value* v : graph.runtime_inputs()) known += (known.empty() ? "'" : ", '") + v->name() + "'";
    return invalid_argument("the model has no input '" + name + "' (its inputs: " + known + ")");
  }
  const DataType dtype = model_input->desc().dtype;
  if (datatype != datatype_name(dtype)) {
    return invalid_argument("input '" + name + "' is " + datatype_name(dtype) + ", not " + datatype);
  }
  if (model_input->desc().shape) {
    const auto& dims = *model_input->desc().shape;
    if (dims.size() != shape.size()) {
      return invalid_argument("input '" + name + "' has rank " + std::to_string(dims.size()) + ", the request's shape " +
                              std::to_string(shape.size()));
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      if (shape[i] < 0) return invalid_argument("input '" + name + "': the shape's dims must be non-negative");
      if (dims[i].is_static() && dims[i].value != shape[i]) {
        return invalid_argument("input '" + name + "' dim " + std::to_string(i) + " is " + std::to_string(dims[i].value) +
                                ", not " + std::to_string(shape[i]));
      }
    }
  }
  std::optional<int64_t> count = 1;
  for (int64_t d : shape) count = count && d >= 0 ? checked_multiply(*count, d) : std::nullopt;
  const size_t element = std::max<size_t>(element_size(dtype), 1);
  if (!count || (*count > 0 && static_cast<uint64_t>(*count) > (uint64_t{1} << 40) / element)) {
    return invalid_argument("input '" + name + "': the shape holds too many elements");
  }
  return Tensor::zeros(dtype, shape);
}

Result<std::vector<RequestedOutput>> requested_outputs(const json& request, const Graph& graph) {
  std::vector<RequestedOutput> out;
  const bool all_binary = request.contains("parameters") && request["parameters"].is_object() &&
                          request["parameters"].value("binary_data_output", false);
  auto it = request.find("outputs");
  if (it == request.end()) {
    for (size_t i = 0; i < graph.outputs().size(); ++i) out.push_back({i, all_binary});
    return out;
  }
  if (!it->is_array()) return invalid_argument("'outputs' is not an array");
  for (const json& o : *it) {
    if (!o.is_object() || !o.contains("name") || !o["name"].is_string()) return invalid_argument("an output has no 'name'");
    const std::string name = o["name"].get<std::string>();
    std::optional<size_t> index;
    for (size_t i = 0; i < graph.outputs().size(); ++i) {
      if (graph.outputs()[i]->name() == name) index = i;
    }
    if (!index) {
      std::string known;
      for (const Value* v : graph.outputs()) known += (known.empty() ? "'" : ", '") + v->name() + "'";
      return invalid_argument("the model has no output '" + name + "' (its outputs: " + known + ")");
    }
    bool binary = all_binary;
    if (o.contains("parameters") && o["parameters"].is_object()) binary = o["parameters"].value("binary_data", binary);
    out.push_back({*index, binary});
  }
  return out;
}

Result<json> output_json(const std::string& name, const Tensor& tensor, bool binary_data, std::string& binary) {
  const std::string datatype = datatype_name(tensor.dtype());
  if (datatype.empty()) return unsupported("output '" + name + "' has a dtype the protocol has no name for");
  json out = {{"name", name}, {"datatype", datatype}, {"shape", tensor.shape()}};
  if (binary_data && tensor.dtype() != DataType::kString) {
    out["parameters"] = {{"binary_data_size", tensor.byte_size()}};
    binary.append(static_cast<const char*>(tensor.raw_data()), tensor.byte_size());
    return out;
  }
  GE_ASSIGN_OR_RETURN(out["data"], data_json(tensor));
  return out;
}

}  // namespace ge::serve
