#include "ge/onnx_common/tensor_proto.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace ge::onnx_common {
namespace {

namespace fs = std::filesystem;

std::string tensor_label(const onnx::TensorProto& proto) {
  return proto.name().empty() ? std::string("tensor <unnamed>") : "tensor '" + proto.name() + "'";
}

// ONNX stores raw_data little-endian; a big-endian host swaps each element in place.
void little_endian_to_host(void* data, size_t count, size_t width) {
  if constexpr (std::endian::native == std::endian::little) {
    return;
  } else {
    auto* bytes = static_cast<unsigned char*>(data);
    for (size_t i = 0; i < count; ++i) {
      unsigned char* element = bytes + i * width;
      for (size_t lo = 0, hi = width - 1; lo < hi; ++lo, --hi) std::swap(element[lo], element[hi]);
    }
  }
}

// Complex types are pairs of their component type: swap per component, not per element.
size_t endian_unit(DataType type) {
  switch (type) {
    case DataType::kComplex64: return 4;
    case DataType::kComplex128: return 8;
    default: return element_size(type);
  }
}

Result<int64_t> parse_non_negative(const std::string& text, const std::string& key,
                                   const std::string& label) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    return parse_error(label + ": external data key '" + key + "' is not a non-negative integer: '" +
                       text + "'");
  }
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return parse_error(label + ": external data key '" + key + "' = " + text +
                       " is out of range (at most 9223372036854775807)");
  }
  return value;
}

// True when `path` (canonical) lies inside `base` (canonical), component by component.
bool is_within(const fs::path& path, const fs::path& base) {
  auto p = path.begin();
  for (auto b = base.begin(); b != base.end(); ++b, ++p) {
    if (b->empty()) continue;  // trailing separator of the base
    if (p == path.end() || *p != *b) return false;
  }
  return true;
}

// The bytes an EXTERNAL tensor refers to: `location` relative to `base_dir`, never leaving
// it, from `offset` for `length` bytes (default: the rest of the file), all checked.
struct ExternalRange {
  fs::path file;  // canonical
  uint64_t offset = 0;
  uint64_t length = 0;
};

Result<ExternalRange> resolve_external_data(const onnx::TensorProto& proto, const fs::path& base_dir) {
  const std::string label = tensor_label(proto);
  std::string location;
  bool has_location = false;
  int64_t offset = 0;
  std::optional<int64_t> length;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
      has_location = true;
    } else if (entry.key() == "offset") {
      GE_ASSIGN_OR_RETURN(offset, parse_non_negative(entry.value(), "offset", label));
    } else if (entry.key() == "length") {
      GE_ASSIGN_OR_RETURN(length, parse_non_negative(entry.value(), "length", label));
    }
    // "checksum" and unknown keys carry nothing we need.
  }
  if (!has_location || location.empty()) {
    return parse_error(label + ": external data has no 'location' key");
  }
  if (base_dir.empty()) {
    return invalid_argument(label + ": external data '" + location +
                            "' cannot be resolved: no base directory (parse the model from a file "
                            "or pass a base directory)");
  }
  const fs::path relative(location);
  if (relative.is_absolute() || relative.has_root_name() || relative.has_root_directory()) {
    return invalid_argument(label + ": external data location '" + location +
                            "' is an absolute path; only paths relative to the model folder are "
                            "allowed");
  }
  std::error_code error;
  const fs::path base = fs::canonical(base_dir, error);
  if (error) {
    return not_found(label + ": external data base directory '" + base_dir.string() +
                     "' does not exist: " + error.message());
  }
  const fs::path resolved = fs::weakly_canonical(base / relative, error);
  if (error) {
    return not_found(label + ": cannot resolve external data '" + location + "' against '" +
                     base.string() + "': " + error.message());
  }
  if (!is_within(resolved, base)) {
    return invalid_argument(label + ": external data location '" + location +
                            "' escapes the model folder '" + base.string() + "'");
  }
  if (!fs::is_regular_file(resolved, error)) {
    return not_found(label + ": external data file '" + resolved.string() +
                     "' does not exist or is not a regular file");
  }
  const uintmax_t file_size = fs::file_size(resolved, error);
  if (error) {
    return not_found(label + ": cannot read the size of external data file '" + resolved.string() +
                     "': " + error.message());
  }
  if (static_cast<uintmax_t>(offset) > file_size) {
    return parse_error(label + ": external data offset " + std::to_string(offset) +
                       " is past the end of '" + resolved.string() + "' (" +
                       std::to_string(file_size) + " bytes)");
  }
  const uintmax_t available = file_size - static_cast<uintmax_t>(offset);
  const uintmax_t wanted = length ? static_cast<uintmax_t>(*length) : available;
  if (wanted > available) {
    return parse_error(label + ": external data file '" + resolved.string() + "' is too short: " +
                       "needs " + std::to_string(wanted) + " bytes at offset " +
                       std::to_string(offset) + ", has " + std::to_string(available));
  }
  return ExternalRange{resolved, static_cast<uint64_t>(offset), static_cast<uint64_t>(wanted)};
}

Result<std::string> read_external_data(const ExternalRange& range, const std::string& label) {
  std::ifstream stream(range.file, std::ios::binary);
  if (!stream) {
    return not_found(label + ": cannot open external data file '" + range.file.string() + "'");
  }
  std::string bytes(static_cast<size_t>(range.length), '\0');
  stream.seekg(static_cast<std::streamoff>(range.offset));
  stream.read(bytes.data(), static_cast<std::streamsize>(range.length));
  if (static_cast<uint64_t>(stream.gcount()) != range.length) {
    return parse_error(label + ": reading " + std::to_string(range.length) + " bytes from '" +
                       range.file.string() + "' returned " + std::to_string(stream.gcount()));
  }
  return bytes;
}

// The bytes of one external-data range, read into memory of the process. Not a mapping of
// the file, even a private one: a Session's weights must not follow the file after it is
// loaded, or rewriting it in place (cp, rsync --inplace) changes live results and
// truncating it raises SIGBUS, which kills a server; Linux discards even the
// copied-on-write pages of a private mapping past a truncation. Reading costs the weights'
// bytes in memory, which the memory limit counts anyway, and a read of the file at load.
class LoadedRange {
 public:
  struct Identity {  // of the file when read: a change gives a new key, so new bytes
    fs::path file;
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t offset = 0, length = 0;
    auto operator<=>(const Identity&) const = default;
  };
  static Identity identity_of(const ExternalRange& range, const struct stat& info) {
    const int64_t mtime_ns = int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec;
    return {range.file, info.st_dev, info.st_ino, info.st_size, mtime_ns, range.offset, range.length};
  }

  static Result<std::shared_ptr<LoadedRange>> read(const ExternalRange& range, const std::string& label) {
    const int fd = ::open(range.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return not_found(label + ": cannot open external data file '" + range.file.string() + "'");
    std::shared_ptr<LoadedRange> loaded(new LoadedRange());
    Status status = loaded->fill(fd, range, label);
    ::close(fd);
    if (!status.is_ok()) return status;
    return loaded;
  }
  ~LoadedRange() { std::free(data_); }
  LoadedRange(const LoadedRange&) = delete;
  LoadedRange& operator=(const LoadedRange&) = delete;

  char* data() const { return static_cast<char*>(data_); }
  const Identity& identity() const { return identity_; }

 private:
  LoadedRange() = default;

  Status fill(int fd, const ExternalRange& range, const std::string& label) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
      return not_found(label + ": cannot read the size of external data file '" + range.file.string() + "'");
    }
    identity_ = identity_of(range, info);
    constexpr size_t kAlignment = 64;
    const size_t bytes = (static_cast<size_t>(range.length) + kAlignment - 1) / kAlignment * kAlignment;
    data_ = std::aligned_alloc(kAlignment, bytes);
    if (data_ == nullptr) {
      return invalid_argument(label + ": not enough memory for the " + std::to_string(range.length) +
                              " bytes of external data from '" + range.file.string() + "'");
    }
    uint64_t done = 0;
    while (done < range.length) {
      const size_t chunk = static_cast<size_t>(std::min<uint64_t>(range.length - done, uint64_t{1} << 30));
      const ssize_t got = ::pread(fd, data() + done, chunk, static_cast<off_t>(range.offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        // The size was checked when the model was opened: the file changed since.
        return parse_error(label + ": external data file '" + range.file.string() + "' changed while the model " +
                           "was loading: reading " + std::to_string(range.length) + " bytes at offset " +
                           std::to_string(range.offset) + " got " + std::to_string(done) +
                           (got < 0 ? std::string(" (") + std::strerror(errno) + ")" : std::string(" (truncated?)")) +
                           "; replace weight files by renaming a new file over the old one");
      }
      done += static_cast<uint64_t>(got);
    }
    return Status::ok();
  }

  void* data_ = nullptr;
  Identity identity_;
};

// int4, uint4 and float4e2m1 travel two to a byte (the first in the low nibble); GE holds
// them one per byte, int4 sign-extended.
bool is_packed_4bit(DataType dtype) {
  return dtype == DataType::kInt4 || dtype == DataType::kUInt4 || dtype == DataType::kFloat4E2M1;
}

uint64_t packed_byte_count(int64_t count) { return (static_cast<uint64_t>(count) + 1) / 2; }

uint8_t unpack_nibble(uint8_t packed_byte, int64_t index, DataType dtype) {
  const uint8_t nibble = (index % 2 == 0) ? (packed_byte & 0x0F) : (packed_byte >> 4);
  if (dtype == DataType::kInt4 && (nibble & 0x08) != 0) return static_cast<uint8_t>(nibble | 0xF0);
  return nibble;
}

// Unpacks `count` 4-bit elements of `packed(i)` (one byte each) into the tensor.
template <typename PackedByte>
void unpack_4bit(Tensor& tensor, int64_t count, PackedByte packed) {
  auto* out = static_cast<uint8_t*>(tensor.raw_data());
  for (int64_t i = 0; i < count; ++i) out[i] = unpack_nibble(packed(i / 2), i, tensor.dtype());
}

// One copy of each range while any tensor holds it: two sessions of one model in a
// process share their external weights (and so the cpu backend's prepacked copies of
// them, which are keyed by the weights' address), unless the file changed in between.
Result<std::shared_ptr<LoadedRange>> loaded_range(const ExternalRange& range, const std::string& label) {
  static std::mutex mutex;
  static std::map<LoadedRange::Identity, std::weak_ptr<LoadedRange>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  struct stat info {};
  if (::stat(range.file.c_str(), &info) != 0) {
    return not_found(label + ": cannot read the size of external data file '" + range.file.string() + "'");
  }
  const LoadedRange::Identity identity = LoadedRange::identity_of(range, info);
  if (auto it = loaded.find(identity); it != loaded.end()) {
    if (std::shared_ptr<LoadedRange> existing = it->second.lock()) return existing;
  }
  static size_t swept_size = 0;
  if (loaded.size() >= 2 * swept_size + 64) {  // forget the ranges no tensor holds, amortised
    std::erase_if(loaded, [](const auto& entry) { return entry.second.expired(); });
    swept_size = loaded.size();
  }
  GE_ASSIGN_OR_RETURN(std::shared_ptr<LoadedRange> range_bytes, LoadedRange::read(range, label));
  loaded[identity] = range_bytes;
  return range_bytes;
}

// External data of fixed-width elements is used as read (a little-endian host needs no
// conversion); null for the types decode_raw converts.
Result<std::optional<Tensor>> load_external_data(const ExternalRange& range, DataType dtype,
                                                 const std::vector<int64_t>& dims, int64_t count,
                                                 const std::string& label) {
  const size_t width = element_size(dtype);
  if (std::endian::native != std::endian::little || dtype == DataType::kString || dtype == DataType::kBool ||
      is_packed_4bit(dtype) || width == 0 || count == 0 || range.length != static_cast<uint64_t>(count) * width) {
    return std::optional<Tensor>();
  }
  GE_ASSIGN_OR_RETURN(std::shared_ptr<LoadedRange> bytes, loaded_range(range, label));
  return std::optional<Tensor>(Tensor::share(dtype, dims, bytes->data(), bytes));
}

// The typed field that carries `dtype`'s values, and how many entries one element takes.
struct TypedField {
  const char* name;
  int64_t size;
  int64_t per_element;
};

TypedField typed_field_for(const onnx::TensorProto& proto, DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return {"float_data", proto.float_data_size(), 1};
    case DataType::kComplex64: return {"float_data", proto.float_data_size(), 2};
    case DataType::kFloat64: return {"double_data", proto.double_data_size(), 1};
    case DataType::kComplex128: return {"double_data", proto.double_data_size(), 2};
    case DataType::kInt64: return {"int64_data", proto.int64_data_size(), 1};
    case DataType::kUInt32:
    case DataType::kUInt64: return {"uint64_data", proto.uint64_data_size(), 1};
    case DataType::kString: return {"string_data", proto.string_data_size(), 1};
    default: return {"int32_data", proto.int32_data_size(), 1};
  }
}

template <typename Out, typename Field>
void copy_field(const Field& field, Out* out) {
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<Out>(field.Get(i));
}

/// The range a value of int32_data (uint64_data for uint32) must lie in to be one element
/// of `dtype`, or nullopt where the field holds the type itself (int32, bool: any value).
std::optional<std::pair<int64_t, int64_t>> narrowed_range(DataType dtype) {
  switch (dtype) {
    case DataType::kInt8:
      return std::pair<int64_t, int64_t>{INT8_MIN, INT8_MAX};
    case DataType::kInt16:
      return std::pair<int64_t, int64_t>{INT16_MIN, INT16_MAX};
    case DataType::kUInt8:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return std::pair<int64_t, int64_t>{0, UINT8_MAX};
    case DataType::kInt4:  // packed pairs, one byte per int32, written signed or not
    case DataType::kUInt4:
    case DataType::kFloat4E2M1:
      return std::pair<int64_t, int64_t>{INT8_MIN, UINT8_MAX};
    case DataType::kUInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return std::pair<int64_t, int64_t>{0, UINT16_MAX};
    case DataType::kUInt32:
      return std::pair<int64_t, int64_t>{0, UINT32_MAX};
    default:
      return std::nullopt;
  }
}

/// A value out of that range is not the value the exporter meant: the cast would keep its
/// low bits only (ONNX Runtime refuses such float16 values as a data overflow).
template <typename Field>
Status check_narrowed(const Field& field, DataType dtype, const char* field_name, const std::string& label) {
  const std::optional<std::pair<int64_t, int64_t>> range = narrowed_range(dtype);
  if (!range) return Status::ok();
  for (int i = 0; i < field.size(); ++i) {
    const auto value = field.Get(i);
    const bool fits = std::is_signed_v<decltype(value)>
                          ? static_cast<int64_t>(value) >= range->first && static_cast<int64_t>(value) <= range->second
                          : static_cast<uint64_t>(value) <= static_cast<uint64_t>(range->second);
    if (!fits) {
      return parse_error(label + ": " + field_name + "[" + std::to_string(i) + "] is " + std::to_string(value) +
                         ", outside " + std::string(data_type_name(dtype)) + "'s " + std::to_string(range->first) +
                         ".." + std::to_string(range->second));
    }
  }
  return Status::ok();
}

Result<Tensor> decode_raw(const std::string& raw, DataType dtype, std::vector<int64_t> dims,
                          int64_t count, const std::string& label, const char* source) {
  if (dtype == DataType::kString) {
    return parse_error(label + ": string tensors cannot use " + std::string(source) +
                       " (use string_data)");
  }
  const size_t width = element_size(dtype);
  const bool packed = is_packed_4bit(dtype);
  const uint64_t expected = packed ? packed_byte_count(count) : static_cast<uint64_t>(count) * width;
  if (raw.size() != expected) {
    return parse_error(label + ": " + source + " has " + std::to_string(raw.size()) +
                       " bytes but " + std::string(data_type_name(dtype)) + " shape " +
                       shape_to_string(dims) + " needs " + std::to_string(expected));
  }
  Tensor tensor = Tensor::zeros(dtype, std::move(dims));
  if (expected == 0) return tensor;
  if (packed) {
    unpack_4bit(tensor, count, [&](int64_t i) { return static_cast<uint8_t>(raw[static_cast<size_t>(i)]); });
    return tensor;
  }
  std::memcpy(tensor.raw_data(), raw.data(), raw.size());
  const size_t unit = endian_unit(dtype);
  little_endian_to_host(tensor.raw_data(), raw.size() / unit, unit);
  if (dtype == DataType::kBool) {
    // Only 0 and 1 are valid bool object representations.
    auto* bytes = static_cast<unsigned char*>(tensor.raw_data());
    for (int64_t i = 0; i < count; ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
  }
  return tensor;
}

Result<Tensor> decode_typed(const onnx::TensorProto& proto, DataType dtype,
                            std::vector<int64_t> dims, int64_t count, const std::string& label) {
  // Check before allocating: a hostile shape with no payload must not allocate.
  const TypedField field = typed_field_for(proto, dtype);
  const int64_t needed =
      is_packed_4bit(dtype) ? static_cast<int64_t>(packed_byte_count(count)) : count * field.per_element;
  if (field.size != needed) {
    return parse_error(label + ": " + field.name + " holds " + std::to_string(field.size) +
                       " values but " + std::string(data_type_name(dtype)) + " shape " +
                       shape_to_string(dims) + " needs " + std::to_string(needed));
  }
  if (dtype == DataType::kUInt32) {
    GE_RETURN_IF_ERROR(check_narrowed(proto.uint64_data(), dtype, field.name, label));
  } else {
    GE_RETURN_IF_ERROR(check_narrowed(proto.int32_data(), dtype, field.name, label));
  }
  Tensor tensor = Tensor::zeros(dtype, std::move(dims));
  switch (dtype) {
    case DataType::kFloat32:
    case DataType::kComplex64: copy_field(proto.float_data(), tensor.data<float>()); break;
    case DataType::kFloat64:
    case DataType::kComplex128: copy_field(proto.double_data(), tensor.data<double>()); break;
    case DataType::kInt32: copy_field(proto.int32_data(), tensor.data<int32_t>()); break;
    case DataType::kInt16: copy_field(proto.int32_data(), tensor.data<int16_t>()); break;
    case DataType::kInt8: copy_field(proto.int32_data(), tensor.data<int8_t>()); break;
    case DataType::kUInt8: copy_field(proto.int32_data(), tensor.data<uint8_t>()); break;
    case DataType::kUInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16:  // 16-bit floats travel as their bit pattern in int32_data
      copy_field(proto.int32_data(), tensor.data<uint16_t>());
      break;
    case DataType::kBool: {
      bool* out = tensor.data<bool>();
      for (int i = 0; i < proto.int32_data_size(); ++i) out[i] = proto.int32_data(i) != 0;
      break;
    }
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:  // bit patterns, one per int32
      copy_field(proto.int32_data(), tensor.data<uint8_t>());
      break;
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kFloat4E2M1:  // packed pairs, one byte per int32
      unpack_4bit(tensor, count, [&](int64_t i) { return static_cast<uint8_t>(proto.int32_data(static_cast<int>(i))); });
      break;
    case DataType::kInt64: copy_field(proto.int64_data(), tensor.data<int64_t>()); break;
    case DataType::kUInt32: copy_field(proto.uint64_data(), tensor.data<uint32_t>()); break;
    case DataType::kUInt64: copy_field(proto.uint64_data(), tensor.data<uint64_t>()); break;
    case DataType::kString: {
      std::string* out = tensor.data<std::string>();
      for (int i = 0; i < proto.string_data_size(); ++i) out[i] = proto.string_data(i);
      break;
    }
    case DataType::kUndefined:
      return internal_error(label + ": undefined data type reached decoding");
  }
  return tensor;
}

}  // namespace

Result<DataType> data_type_from_onnx(int32_t onnx_type) {
  if (onnx_type == onnx::TensorProto::UNDEFINED) {
    return unsupported("ONNX data type UNDEFINED (0) has no GE element type");
  }
  if (!is_valid_data_type(onnx_type)) {
    const std::string name = onnx::TensorProto::DataType_IsValid(onnx_type)
                                 ? onnx::TensorProto::DataType_Name(onnx_type)
                                 : std::string("unknown");
    return unsupported("ONNX data type " + name + " (" + std::to_string(onnx_type) +
                       ") is not supported by GE");
  }
  return static_cast<DataType>(onnx_type);
}

Result<Tensor> tensor_from_proto(const onnx::TensorProto& proto, const fs::path& base_dir) {
  const std::string label = tensor_label(proto);
  auto dtype_result = data_type_from_onnx(proto.data_type());
  if (!dtype_result.is_ok()) return dtype_result.status().with_context(label);
  const DataType dtype = *dtype_result;
  if (proto.has_segment()) {
    return unsupported(label + ": segmented tensors are not supported");
  }

  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) {
      return parse_error(label + ": negative dimension in shape " + shape_to_string(dims));
    }
    if (__builtin_mul_overflow(count, dim, &count)) {
      return parse_error(label + ": shape " + shape_to_string(dims) + " overflows int64");
    }
  }
  // Bytes for the tensor must fit in memory arithmetic; this also bounds what we allocate
  // before validating the payload.
  const uint64_t width = std::max<uint64_t>(element_size(dtype), 1);
  if (static_cast<uint64_t>(count) > std::numeric_limits<uint64_t>::max() / width / 2) {
    return parse_error(label + ": shape " + shape_to_string(dims) + " is too large");
  }

  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    GE_ASSIGN_OR_RETURN(ExternalRange range, resolve_external_data(proto, base_dir));
    GE_ASSIGN_OR_RETURN(std::optional<Tensor> loaded, load_external_data(range, dtype, dims, count, label));
    if (loaded) return std::move(*loaded);
    GE_ASSIGN_OR_RETURN(std::string bytes, read_external_data(range, label));
    return decode_raw(bytes, dtype, std::move(dims), count, label, "external data");
  }
  if (proto.has_raw_data()) {
    return decode_raw(proto.raw_data(), dtype, std::move(dims), count, label, "raw_data");
  }
  return decode_typed(proto, dtype, std::move(dims), count, label);
}

onnx::TensorProto tensor_to_proto(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  if (!name.empty()) proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
  for (int64_t dim : tensor.shape()) proto.add_dims(dim);
  if (!tensor.defined()) return proto;
  const int64_t count = tensor.element_count();
  if (tensor.dtype() == DataType::kString) {
    const std::string* values = tensor.data<std::string>();
    for (int64_t i = 0; i < count; ++i) proto.add_string_data(values[i]);
    return proto;
  }
  std::string* raw = proto.mutable_raw_data();
  if (is_packed_4bit(tensor.dtype())) {
    raw->assign(packed_byte_count(count), '\0');
    const auto* values = static_cast<const uint8_t*>(tensor.raw_data());
    for (int64_t i = 0; i < count; ++i) {
      const auto nibble = static_cast<uint8_t>(values[i] & 0x0F);
      (*raw)[static_cast<size_t>(i / 2)] = static_cast<char>(static_cast<uint8_t>((*raw)[static_cast<size_t>(i / 2)]) |
                                                             (i % 2 == 0 ? nibble : nibble << 4));
    }
    return proto;
  }
  raw->resize(tensor.byte_size());
  if (!raw->empty()) {
    std::memcpy(raw->data(), tensor.raw_data(), raw->size());
    const size_t unit = endian_unit(tensor.dtype());
    little_endian_to_host(raw->data(), raw->size() / unit, unit);  // the swap is symmetric
  }
  return proto;
}

Result<Tensor> read_tensor_file(const fs::path& path) {
  const std::string source = "'" + path.string() + "'";
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    return not_found("tensor file " + source + " does not exist or is not a regular file");
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return invalid_argument("cannot open tensor file " + source + " for reading");
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&stream)) {
    return parse_error("tensor file " + source + " is not a valid ONNX TensorProto (protobuf parse failed)");
  }
  const fs::path folder = fs::absolute(path, error).parent_path();
  auto tensor = tensor_from_proto(proto, error ? path.parent_path() : folder);
  if (!tensor.is_ok()) return tensor.status().with_context("tensor file " + source);
  return tensor;
}

Status write_tensor_file(const Tensor& tensor, const fs::path& path, const std::string& name) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  if (!stream) return invalid_argument("cannot open '" + path.string() + "' for writing");
  if (!tensor_to_proto(tensor, name).SerializeToOstream(&stream) || !stream.flush()) {
    return invalid_argument("error while writing tensor file '" + path.string() + "'");
  }
  return Status::ok();
}

namespace {

Result<TensorDesc> desc_from_tensor_type(const onnx::TypeProto::Tensor& tensor_type) {
  TensorDesc desc;
  if (tensor_type.elem_type() != onnx::TensorProto::UNDEFINED) {
    GE_ASSIGN_OR_RETURN(desc.dtype, data_type_from_onnx(tensor_type.elem_type()));
  }
  if (tensor_type.has_shape()) {
    std::vector<Dim> dims;
    dims.reserve(tensor_type.shape().dim_size());
    for (const auto& dim : tensor_type.shape().dim()) {
      if (dim.has_dim_value() && dim.dim_value() >= 0) {
        dims.push_back(Dim::of(dim.dim_value()));
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        dims.push_back(Dim::named(dim.dim_param()));
      } else {
        dims.push_back(Dim::unknown());
      }
    }
    desc.shape = std::move(dims);
  }
  return desc;
}

void fill_tensor_type(const TensorDesc& desc, onnx::TypeProto::Tensor* out) {
  out->set_elem_type(static_cast<int32_t>(desc.dtype));
  if (!desc.shape) return;
  onnx::TensorShapeProto* shape = out->mutable_shape();
  for (const Dim& dim : *desc.shape) {
    auto* proto_dim = shape->add_dim();
    if (dim.is_static()) {
      proto_dim->set_dim_value(dim.value);
    } else if (!dim.symbol.empty()) {
      proto_dim->set_dim_param(dim.symbol);
    }
  }
}

}  // namespace

Result<TensorDesc> desc_from_type_proto(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      return desc_from_tensor_type(type.tensor_type());
    case onnx::TypeProto::kSequenceType: {
      TensorDesc desc;
      if (type.sequence_type().has_elem_type()) {
        const auto& elem = type.sequence_type().elem_type();
        if (elem.value_case() != onnx::TypeProto::kTensorType) {
          return unsupported("sequences of non-tensor types are not supported");
        }
        GE_ASSIGN_OR_RETURN(desc, desc_from_tensor_type(elem.tensor_type()));
      }
      desc.kind = ValueKind::kSequence;
      return desc;
    }
    case onnx::TypeProto::kOptionalType: {
      TensorDesc desc;
      desc.kind = ValueKind::kOptional;
      if (!type.optional_type().has_elem_type()) return desc;
      const auto& elem = type.optional_type().elem_type();
      if (elem.value_case() == onnx::TypeProto::kTensorType) {
        GE_ASSIGN_OR_RETURN(desc, desc_from_tensor_type(elem.tensor_type()));
        desc.kind = ValueKind::kOptional;
        return desc;
      }
      if (elem.value_case() == onnx::TypeProto::kSequenceType) {
        GE_ASSIGN_OR_RETURN(desc, desc_from_type_proto(elem));
        desc.kind = ValueKind::kOptionalSequence;
        return desc;
      }
      return unsupported("optional of a non-tensor, non-sequence type is not supported");
    }
    case onnx::TypeProto::kMapType:
      return unsupported("map types are not supported");
    case onnx::TypeProto::kSparseTensorType:
      return unsupported("sparse tensor types are not supported");
    case onnx::TypeProto::kOpaqueType:
      return unsupported("opaque types are not supported");
    case onnx::TypeProto::VALUE_NOT_SET:
      return TensorDesc{};  // type unknown: inference fills it in
  }
  return unsupported("unknown TypeProto kind " + std::to_string(static_cast<int>(type.value_case())));
}

onnx::TypeProto desc_to_type_proto(const TensorDesc& desc) {
  onnx::TypeProto type;
  switch (desc.kind) {
    case ValueKind::kTensor:
      fill_tensor_type(desc, type.mutable_tensor_type());
      break;
    case ValueKind::kSequence:
      fill_tensor_type(desc, type.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type());
      break;
    case ValueKind::kOptional:
      fill_tensor_type(desc, type.mutable_optional_type()->mutable_elem_type()->mutable_tensor_type());
      break;
    case ValueKind::kOptionalSequence:
      fill_tensor_type(desc, type.mutable_optional_type()
                                 ->mutable_elem_type()
                                 ->mutable_sequence_type()
                                 ->mutable_elem_type()
                                 ->mutable_tensor_type());
      break;
  }
  return type;
}

}  // namespace ge::onnx_common
