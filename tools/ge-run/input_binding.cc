#include "input_binding.h"

#include <bit>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "half_float.h"
#include "tensor_file.h"

namespace ge::tools {
namespace {

// Seed of the first input's random data; input K uses kRandomSeed + K.
constexpr uint64_t kRandomSeed = 20240601;

std::string describe_inputs(const std::vector<Value*>& inputs) {
  if (inputs.empty()) return "(none)";
  std::string text;
  for (const Value* input : inputs) {
    if (!text.empty()) text += ", ";
    text += "'" + input->name() + "' " + input->desc().to_string();
  }
  return text;
}

std::string describe_spec(const InputSpec& spec) {
  return "--input " + (spec.name ? *spec.name + "=" : std::string()) + spec.source;
}

/// Fills `tensor` element by element with make(generator()).
template <typename T, typename Make>
void fill(Tensor& tensor, std::mt19937& generator, Make make) {
  T* data = tensor.data<T>();
  for (int64_t i = 0; i < tensor.element_count(); ++i) data[i] = make(generator());
}

}  // namespace

Result<Tensor> random_tensor(const TensorDesc& desc, uint64_t seed) {
  if (desc.kind != ValueKind::kTensor) {
    return unsupported("random data for " + desc.to_string() + " is not supported (tensors only)");
  }
  if (!desc.is_static()) {
    return invalid_argument("random data needs a static shape, but the input is " + desc.to_string() +
                            "; give a .npy or .pb file instead");
  }
  Tensor tensor = Tensor::zeros(desc.dtype, desc.static_dims());
  // Raw mt19937 output is specified exactly by the standard (unlike the distributions),
  // so the values below are the same everywhere. Each float kind keeps only as many bits
  // as it represents exactly, so the data needs no rounding.
  std::mt19937 generator(static_cast<uint32_t>(seed));
  auto unit = [](uint32_t bits, int keep) {  // uniform multiple of 2^-(keep-1) in [-1, 1)
    return static_cast<float>(std::ldexp(static_cast<double>(bits >> (32 - keep)), 1 - keep) - 1.0);
  };
  switch (desc.dtype) {
    case DataType::kFloat32:
      fill<float>(tensor, generator, [&](uint32_t u) { return unit(u, 24); });
      break;
    case DataType::kFloat64:
      fill<double>(tensor, generator, [&](uint32_t u) { return double(unit(u, 24)); });
      break;
    case DataType::kFloat16:
      fill<uint16_t>(tensor, generator, [&](uint32_t u) { return exact_float_to_half_bits(unit(u, 10)); });
      break;
    case DataType::kBFloat16:
      fill<uint16_t>(tensor, generator,
                     [&](uint32_t u) { return static_cast<uint16_t>(std::bit_cast<uint32_t>(unit(u, 8)) >> 16); });
      break;
    case DataType::kInt8:
      fill<int8_t>(tensor, generator, [](uint32_t u) { return int8_t(u % 5); });
      break;
    case DataType::kInt16:
      fill<int16_t>(tensor, generator, [](uint32_t u) { return int16_t(u % 5); });
      break;
    case DataType::kInt32:
      fill<int32_t>(tensor, generator, [](uint32_t u) { return int32_t(u % 5); });
      break;
    case DataType::kInt64:
      fill<int64_t>(tensor, generator, [](uint32_t u) { return int64_t(u % 5); });
      break;
    case DataType::kUInt8:
      fill<uint8_t>(tensor, generator, [](uint32_t u) { return uint8_t(u % 5); });
      break;
    case DataType::kUInt16:
      fill<uint16_t>(tensor, generator, [](uint32_t u) { return uint16_t(u % 5); });
      break;
    case DataType::kUInt32:
      fill<uint32_t>(tensor, generator, [](uint32_t u) { return uint32_t(u % 5); });
      break;
    case DataType::kUInt64:
      fill<uint64_t>(tensor, generator, [](uint32_t u) { return uint64_t(u % 5); });
      break;
    case DataType::kBool:
      fill<bool>(tensor, generator, [](uint32_t u) { return (u >> 31) != 0; });
      break;
    default:
      return unsupported("random data for dtype " + std::string(data_type_name(desc.dtype)) +
                         " is not supported; give a .npy or .pb file instead");
  }
  return tensor;
}

Status check_input_matches(const std::string& input_name, const std::string& source, const TensorDesc& desc,
                           const Tensor& tensor) {
  const std::string what = "input '" + input_name + "' from '" + source + "'";
  if (desc.kind != ValueKind::kTensor) {
    return unsupported(what + ": the model expects " + desc.to_string() + ", ge-run binds tensors only");
  }
  if (desc.dtype != DataType::kUndefined && tensor.dtype() != desc.dtype) {
    return invalid_argument(what + " has dtype " + std::string(data_type_name(tensor.dtype())) +
                            " but the model expects " + desc.to_string());
  }
  if (!desc.has_rank()) return Status::ok();
  bool fits = tensor.rank() == desc.rank();
  for (int64_t i = 0; fits && i < desc.rank(); ++i) {
    const Dim& dim = (*desc.shape)[static_cast<size_t>(i)];
    fits = !dim.is_static() || dim.value == tensor.shape()[static_cast<size_t>(i)];
  }
  if (!fits) {
    return invalid_argument(what + " has shape " + shape_to_string(tensor.shape()) + " but the model expects " +
                            desc.to_string());
  }
  return Status::ok();
}

Result<NamedTensors> bind_inputs(const Graph& graph, const std::vector<InputSpec>& specs) {
  const std::vector<Value*> runtime = graph.runtime_inputs();
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < runtime.size(); ++i) index_of[runtime[i]->name()] = i;

  // Resolve every spec to an input first, so naming errors come before any file is read.
  std::vector<const InputSpec*> bound(runtime.size(), nullptr);
  size_t positional = 0;
  for (const InputSpec& spec : specs) {
    size_t target = 0;
    if (spec.name) {
      auto found = index_of.find(*spec.name);
      if (found == index_of.end()) {
        const Value* value = graph.find_value(*spec.name);
        const bool is_weight = value != nullptr && value->is_constant();
        return invalid_argument("unknown input '" + *spec.name + "' in " + describe_spec(spec) +
                                (is_weight ? " (it is an initializer, not a runtime input)" : "") +
                                "; the model's inputs are: " + describe_inputs(runtime));
      }
      target = found->second;
    } else {
      target = positional++;
      if (target >= runtime.size()) {
        return invalid_argument(describe_spec(spec) + ": more positional inputs than the model has (" +
                                std::to_string(runtime.size()) + "): " + describe_inputs(runtime));
      }
    }
    if (bound[target] != nullptr) {
      return invalid_argument("input '" + runtime[target]->name() +
                              "' is bound twice: " + describe_spec(*bound[target]) + " and " + describe_spec(spec));
    }
    bound[target] = &spec;
  }
  for (size_t i = 0; i < runtime.size(); ++i) {
    if (bound[i] != nullptr) continue;
    const std::string& name = runtime[i]->name();
    return invalid_argument("missing input '" + name + "' " + runtime[i]->desc().to_string() +
                            ": bind it with --input " + name + "=FILE (.npy or .pb) or --input " + name + "=random");
  }

  NamedTensors tensors;
  for (size_t i = 0; i < runtime.size(); ++i) {
    const InputSpec& spec = *bound[i];
    const std::string& name = runtime[i]->name();
    const TensorDesc& desc = runtime[i]->desc();
    Tensor tensor;
    if (spec.is_random()) {
      Result<Tensor> random = random_tensor(desc, kRandomSeed + i);
      if (!random.is_ok()) return random.status().with_context("input '" + name + "' (" + describe_spec(spec) + ")");
      tensor = std::move(random).value();
    } else {
      Result<Tensor> loaded = read_tensor_file(spec.source);
      if (!loaded.is_ok()) return loaded.status().with_context("input '" + name + "'");
      tensor = std::move(loaded).value();
      GE_RETURN_IF_ERROR(check_input_matches(name, spec.source, desc, tensor));
    }
    tensors.emplace_back(name, std::move(tensor));
  }
  return tensors;
}

}  // namespace ge::tools
