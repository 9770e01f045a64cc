#include "input_binding.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "ge/memory_limit.h"
#include "ge/minifloat.h"
#include "npz.h"
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
      fill<uint16_t>(tensor, generator, [&](uint32_t u) { return float16_from_float(unit(u, 10)); });
      break;
    case DataType::kBFloat16:
      fill<uint16_t>(tensor, generator, [&](uint32_t u) { return bfloat16_from_float(unit(u, 8)); });
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
    case DataType::kInt4:
      fill<int8_t>(tensor, generator, [](uint32_t u) { return int8_t(u % 5); });
      break;
    case DataType::kUInt4:
      fill<uint8_t>(tensor, generator, [](uint32_t u) { return uint8_t(u % 5); });
      break;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat4E2M1: {
      // Multiples of 1/4 in [-1, 1) (float4: of 1/2), which every one of these formats holds.
      const MinifloatFormat format = *minifloat_format(desc.dtype);
      const int keep = desc.dtype == DataType::kFloat4E2M1 ? 2 : 3;
      fill<uint8_t>(tensor, generator, [&](uint32_t u) { return float_to_minifloat(unit(u, keep), format); });
      break;
    }
    default:
      return unsupported("random data for dtype " + std::string(data_type_name(desc.dtype)) +
                         " is not supported; give a .npy or .pb file instead");
  }
  return tensor;
}

namespace {

/// check_input_matches() on a dtype and shape, whether or not a tensor holds them yet.
Status check_dtype_and_shape(const std::string& input_name, const std::string& source, const TensorDesc& desc,
                             DataType dtype, const std::vector<int64_t>& shape) {
  const std::string what = "input '" + input_name + "' from '" + source + "'";
  if (desc.kind != ValueKind::kTensor) {
    return unsupported(what + ": the model expects " + desc.to_string() + ", ge-run binds tensors only");
  }
  if (desc.dtype != DataType::kUndefined && dtype != desc.dtype) {
    return invalid_argument(what + " has dtype " + std::string(data_type_name(dtype)) + " but the model expects " +
                            desc.to_string());
  }
  if (!desc.has_rank()) return Status::ok();
  bool fits = static_cast<int64_t>(shape.size()) == desc.rank();
  for (int64_t i = 0; fits && i < desc.rank(); ++i) {
    const Dim& dim = (*desc.shape)[static_cast<size_t>(i)];
    fits = !dim.is_static() || dim.value == shape[static_cast<size_t>(i)];
  }
  if (!fits) {
    return invalid_argument(what + " has shape " + shape_to_string(shape) + " but the model expects " +
                            desc.to_string());
  }
  return Status::ok();
}

}  // namespace

Status check_input_matches(const std::string& input_name, const std::string& source, const TensorDesc& desc,
                           const Tensor& tensor) {
  return check_dtype_and_shape(input_name, source, desc, tensor.dtype(), tensor.shape());
}

Status check_value_matches(const std::string& input_name, const std::string& source, const TensorDesc& desc,
                           const RuntimeValue& value) {
  if (value.kind != desc.kind) {
    return invalid_argument("input '" + input_name + "' from '" + source + "' is " + value.to_string() +
                            " but the model expects " + desc.to_string());
  }
  if (!value.has_element) return Status::ok();
  TensorDesc element = desc;
  element.kind = ValueKind::kTensor;
  if (value.holds_tensor()) return check_input_matches(input_name, source, element, value.tensor);
  for (size_t i = 0; i < value.sequence.size(); ++i) {
    Status status = check_input_matches(input_name, source, element, value.sequence[i]);
    if (!status.is_ok()) return status.with_context("sequence element " + std::to_string(i));
  }
  return Status::ok();
}

namespace {

bool is_npz(const std::string& source) {
  constexpr std::string_view kSuffix = ".npz";
  if (source.size() <= kSuffix.size()) return false;
  for (size_t i = 0; i < kSuffix.size(); ++i) {
    const char c = source[source.size() - kSuffix.size() + i];
    if (std::tolower(static_cast<unsigned char>(c)) != kSuffix[i]) return false;
  }
  return true;
}

/// One input's binding: a spec naming a file (or random), or an array of a .npz archive
/// (read from the archive only once its declared dtype and shape fit the input).
struct Binding {
  const InputSpec* spec = nullptr;
  std::shared_ptr<const NpzArchive> archive;  ///< set for an archive's array
  size_t array = 0;                           ///< its index in the archive
  std::string described;                      ///< "--input x.npy", "--input all.npz (array 'x')"
};

std::string array_names(const NpzArchive& archive) {
  std::string text;
  for (const NpzArchive::Array& array : archive.arrays()) text += (text.empty() ? "'" : ", '") + array.name + "'";
  return text.empty() ? "(none)" : text;
}

/// check_input_matches() on what an archive's .npy header declares, before its payload is
/// inflated; a uint16 array may stand for a bfloat16 input (value_from_tensor relabels it).
Status check_array_matches(const std::string& input_name, const std::string& source, const TensorDesc& desc,
                           const NpyLayout& layout) {
  if (desc.kind != ValueKind::kTensor) return Status::ok();  // value_from_tensor says what is wrong
  const DataType dtype =
      desc.dtype == DataType::kBFloat16 && layout.dtype == DataType::kUInt16 ? DataType::kBFloat16 : layout.dtype;
  return check_dtype_and_shape(input_name, source, desc, dtype, layout.shape);
}

Result<std::shared_ptr<const NpzArchive>> open_archive(const InputSpec& spec, size_t memory_limit) {
  Result<NpzArchive> archive = NpzArchive::open(spec.source, memory_limit);
  if (!archive.is_ok()) return archive.status().with_context(describe_spec(spec));
  return std::make_shared<const NpzArchive>(std::move(archive).value());
}

/// The runtime input numpy.savez's positional name `arr_K` stands for, if any.
std::optional<size_t> positional_array_index(const std::string& name, size_t inputs) {
  constexpr std::string_view kPrefix = "arr_";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0 ||
      name.find_first_not_of("0123456789", kPrefix.size()) != std::string::npos || name.size() > 12) {
    return std::nullopt;
  }
  const size_t index = std::stoul(name.substr(kPrefix.size()));
  return index < inputs ? std::optional<size_t>(index) : std::nullopt;
}

}  // namespace

Result<NamedValues> bind_inputs(const Graph& graph, const std::vector<InputSpec>& specs, size_t memory_limit) {
  const size_t limit = memory_limit > 0 ? memory_limit : physical_memory_bytes();
  const std::vector<Value*> runtime = graph.runtime_inputs();
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < runtime.size(); ++i) index_of[runtime[i]->name()] = i;

  // Resolve every spec to an input first, so naming errors come before any file but a
  // .npz archive (whose names are inside it) is read.
  std::vector<std::optional<Binding>> bound(runtime.size());
  auto bind = [&](size_t target, Binding binding) -> Status {
    if (bound[target]) {
      return invalid_argument("input '" + runtime[target]->name() + "' is bound twice: " + bound[target]->described +
                              " and " + binding.described);
    }
    bound[target] = std::move(binding);
    return Status::ok();
  };
  size_t positional = 0;
  for (const InputSpec& spec : specs) {
    if (!spec.name && is_npz(spec.source)) {
      GE_ASSIGN_OR_RETURN(std::shared_ptr<const NpzArchive> archive, open_archive(spec, limit));
      if (archive->arrays().empty()) return invalid_argument(describe_spec(spec) + ": the archive holds no arrays");
      for (size_t index = 0; index < archive->arrays().size(); ++index) {
        const std::string& array_name = archive->arrays()[index].name;
        std::optional<size_t> target;
        if (auto found = index_of.find(array_name); found != index_of.end()) {
          target = found->second;
        } else {
          target = positional_array_index(array_name, runtime.size());
        }
        if (!target) {
          return invalid_argument(describe_spec(spec) + ": the archive's array '" + array_name +
                                  "' names no input of the model; the model's inputs are: " + describe_inputs(runtime));
        }
        GE_RETURN_IF_ERROR(
            bind(*target, Binding{&spec, archive, index, describe_spec(spec) + " (array '" + array_name + "')"}));
      }
      continue;
    }
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
    Binding binding{&spec, nullptr, 0, describe_spec(spec)};
    if (is_npz(spec.source)) {  // NAME=FILE.npz: the array NAME, or the only one
      GE_ASSIGN_OR_RETURN(binding.archive, open_archive(spec, limit));
      const std::vector<NpzArchive::Array>& arrays = binding.archive->arrays();
      auto named =
          std::find_if(arrays.begin(), arrays.end(), [&](const auto& array) { return array.name == *spec.name; });
      if (named == arrays.end() && arrays.size() == 1) named = arrays.begin();
      if (named == arrays.end()) {
        return invalid_argument(describe_spec(spec) + ": the archive has no array '" + *spec.name +
                                "' and more than one to choose from: " + array_names(*binding.archive));
      }
      binding.array = static_cast<size_t>(named - arrays.begin());
      binding.described += " (array '" + named->name + "')";
    }
    GE_RETURN_IF_ERROR(bind(target, std::move(binding)));
  }
  for (size_t i = 0; i < runtime.size(); ++i) {
    if (bound[i]) continue;
    const std::string& name = runtime[i]->name();
    return invalid_argument("missing input '" + name + "' " + runtime[i]->desc().to_string() +
                            ": bind it with --input " + name + "=FILE (.npy, .pb or .npz) or --input " + name +
                            "=random");
  }

  // Every archive array fits its input and, all together, the memory limit before any
  // is inflated.
  size_t archive_bytes = 0;
  for (size_t i = 0; i < runtime.size(); ++i) {
    const Binding& binding = *bound[i];
    if (!binding.archive) continue;
    const NpyLayout& layout = binding.archive->arrays()[binding.array].layout;
    GE_RETURN_IF_ERROR(check_array_matches(runtime[i]->name(), binding.described, runtime[i]->desc(), layout));
    GE_RETURN_IF_ERROR(check_memory_limit("input '" + runtime[i]->name() + "' from " + binding.described + " (" +
                                              layout.descr + " " + shape_to_string(layout.shape) + ")",
                                          layout.payload_bytes, limit, archive_bytes));
    archive_bytes += layout.payload_bytes;
  }

  NamedValues values;
  for (size_t i = 0; i < runtime.size(); ++i) {
    const Binding& binding = *bound[i];
    const InputSpec& spec = *binding.spec;
    const std::string& name = runtime[i]->name();
    const TensorDesc& desc = runtime[i]->desc();
    RuntimeValue value;
    if (binding.archive) {
      Result<Tensor> array = binding.archive->load(binding.array);
      if (!array.is_ok()) return array.status().with_context(binding.described);
      Result<RuntimeValue> converted = value_from_tensor(std::move(array).value(), desc, binding.described);
      if (!converted.is_ok()) return converted.status().with_context("input '" + name + "'");
      value = std::move(converted).value();
      GE_RETURN_IF_ERROR(check_value_matches(name, binding.described, desc, value));
    } else if (spec.is_random()) {
      Result<Tensor> random = random_tensor(desc, kRandomSeed + i);
      if (!random.is_ok()) return random.status().with_context("input '" + name + "' (" + describe_spec(spec) + ")");
      value = RuntimeValue::of(std::move(random).value());
    } else {
      Result<RuntimeValue> loaded = read_value_file(spec.source, desc);
      if (!loaded.is_ok()) return loaded.status().with_context("input '" + name + "'");
      value = std::move(loaded).value();
      GE_RETURN_IF_ERROR(check_value_matches(name, spec.source, desc, value));
    }
    values.emplace_back(name, std::move(value));
  }
  return values;
}

Result<NamedTensors> plain_tensors(const NamedValues& values, const std::string& purpose) {
  NamedTensors tensors;
  for (const auto& [name, value] : values) {
    if (!value.is_tensor()) {
      return unsupported(purpose + " takes tensor inputs only, but input '" + name + "' is " + value.to_string());
    }
    tensors.emplace_back(name, value.tensor);
  }
  return tensors;
}

}  // namespace ge::tools
