#include "npy.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include "ge/atomic_file.h"
#include "ge/tensor_desc.h"

namespace ge::tools {
namespace {

// Payloads are copied byte for byte into host tensors, which is only right on a
// little-endian host.
static_assert(std::endian::native == std::endian::little, "npy I/O assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";

struct DtypeEntry {
  char kind;      // numpy kind character: f, i, u, b
  int item_size;  // bytes
  DataType type;
};

constexpr DtypeEntry kDtypes[] = {
    {'f', 2, DataType::kFloat16}, {'f', 4, DataType::kFloat32}, {'f', 8, DataType::kFloat64},
    {'i', 1, DataType::kInt8},    {'i', 2, DataType::kInt16},   {'i', 4, DataType::kInt32},
    {'i', 8, DataType::kInt64},   {'u', 1, DataType::kUInt8},   {'u', 2, DataType::kUInt16},
    {'u', 4, DataType::kUInt32},  {'u', 8, DataType::kUInt64},  {'b', 1, DataType::kBool},
};

/// The three keys of a .npy header dictionary.
struct NpyHeader {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

/// Parses the Python dict literal numpy writes as the header, accepting only what
/// np.save produces: string keys, a string, a bool and a tuple of non-negative ints.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Result<NpyHeader> parse() {
    NpyHeader header;
    skip_space();
    GE_RETURN_IF_ERROR(expect('{'));
    skip_space();
    while (!at('}')) {
      GE_ASSIGN_OR_RETURN(std::string key, parse_string());
      skip_space();
      GE_RETURN_IF_ERROR(expect(':'));
      skip_space();
      if (key == "descr") {
        if (header.descr) return error("duplicate key 'descr'");
        GE_ASSIGN_OR_RETURN(header.descr, parse_string());
      } else if (key == "fortran_order") {
        if (header.fortran_order) return error("duplicate key 'fortran_order'");
        GE_ASSIGN_OR_RETURN(header.fortran_order, parse_bool());
      } else if (key == "shape") {
        if (header.shape) return error("duplicate key 'shape'");
        GE_ASSIGN_OR_RETURN(header.shape, parse_shape());
      } else {
        return error("unexpected key '" + key + "' (expected descr, fortran_order, shape)");
      }
      skip_space();
      if (at(',')) {
        ++pos_;
        skip_space();
      } else if (!at('}')) {
        return error("expected ',' or '}'");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) return error("unexpected text after the header dictionary");
    if (!header.descr) return error("missing key 'descr'");
    if (!header.fortran_order) return error("missing key 'fortran_order'");
    if (!header.shape) return error("missing key 'shape'");
    return header;
  }

 private:
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  Status error(const std::string& what) const {
    return parse_error(source_ + ": malformed .npy header at offset " + std::to_string(pos_) + ": " + what + " in \"" +
                       std::string(text_) + "\"");
  }

  Status expect(char c) {
    if (!at(c)) return error(std::string("expected '") + c + "'");
    ++pos_;
    return Status::ok();
  }

  Result<std::string> parse_string() {
    if (!at('\'') && !at('"')) return error("expected a quoted string");
    const char quote = text_[pos_++];
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return error("escape sequences are not supported");
      ++pos_;
    }
    if (pos_ == text_.size()) return error("unterminated string");
    std::string value(text_.substr(start, pos_ - start));
    ++pos_;
    return value;
  }

  Result<bool> parse_bool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    return error("expected True or False");
  }

  Result<std::vector<int64_t>> parse_shape() {
    GE_RETURN_IF_ERROR(expect('('));
    std::vector<int64_t> dims;
    bool trailing_comma = false;
    skip_space();
    while (!at(')')) {
      if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        return error("expected a non-negative integer dimension");
      }
      int64_t dim = 0;
      auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), dim);
      if (ec != std::errc()) return error("dimension out of range");
      pos_ = static_cast<size_t>(end - text_.data());
      // Python 2 wrote 3L for longs.
      if (at('L')) ++pos_;
      dims.push_back(dim);
      skip_space();
      trailing_comma = at(',');
      if (trailing_comma) {
        ++pos_;
        skip_space();
      } else if (!at(')')) {
        return error("expected ',' or ')' in shape");
      }
    }
    // "(3)" is the integer 3 in Python, not a tuple.
    if (dims.size() == 1 && !trailing_comma) return error("shape '(N)' is not a tuple; expected '(N,)'");
    ++pos_;
    return dims;
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
};

uint32_t read_le(std::string_view bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  return value;
}

Result<DataType> dtype_from_descr(const std::string& descr, const std::string& source) {
  const std::string hint = " (supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1)";
  if (descr.size() < 3) return unsupported(source + ": unsupported .npy dtype '" + descr + "'" + hint);
  const char order = descr[0];
  const char kind = descr[1];
  int size = 0;
  auto [end, ec] = std::from_chars(descr.data() + 2, descr.data() + descr.size(), size);
  if (ec != std::errc() || end != descr.data() + descr.size()) {
    return unsupported(source + ": unsupported .npy dtype '" + descr + "'" + hint);
  }
  for (const DtypeEntry& entry : kDtypes) {
    if (entry.kind != kind || entry.item_size != size) continue;
    // Byte order is irrelevant for one-byte types; numpy writes '|' for them.
    if (size == 1 && (order == '|' || order == '<' || order == '>' || order == '=')) return entry.type;
    if (order == '<') return entry.type;
    if (order == '>') {
      return unsupported(source + ": big-endian .npy dtype '" + descr +
                         "' is not supported; save with arr.astype(arr.dtype.newbyteorder('<'))");
    }
    return unsupported(source + ": .npy dtype '" + descr + "' has byte order '" + std::string(1, order) +
                       "'; expected '<'");
  }
  return unsupported(source + ": unsupported .npy dtype '" + descr + "'" + hint);
}

std::optional<std::string> descr_for(DataType type) {
  for (const DtypeEntry& entry : kDtypes) {
    if (entry.type != type) continue;
    return std::string(1, entry.item_size == 1 ? '|' : '<') + entry.kind + std::to_string(entry.item_size);
  }
  return std::nullopt;
}

std::string shape_literal(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

}  // namespace

Result<NpyLayout> parse_npy_header(std::string_view bytes, const std::string& source) {
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic) {
    return parse_error(source + ": not a .npy file (missing the \\x93NUMPY magic)");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  const int minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return unsupported(source + ": unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  const size_t length_width = major == 1 ? 2 : 4;
  const size_t header_start = 8 + length_width;
  if (bytes.size() < header_start) return parse_error(source + ": truncated .npy header");
  const size_t header_length = read_le(bytes, 8, length_width);
  if (header_start + header_length > kMaxNpyHeaderBytes) {
    return parse_error(source + ": .npy header declares " + std::to_string(header_length) + " bytes, more than the " +
                       std::to_string(kMaxNpyHeaderBytes) + " any array needs");
  }
  if (bytes.size() - header_start < header_length) {
    return parse_error(source + ": truncated .npy header (declares " + std::to_string(header_length) +
                       " bytes, file has " + std::to_string(bytes.size() - header_start) + ")");
  }
  const std::string_view header_text = bytes.substr(header_start, header_length);
  for (char c : header_text) {
    // Versions 1 and 2 are latin-1, 3 is UTF-8; a valid header is plain ASCII either way.
    if (static_cast<unsigned char>(c) >= 0x80) return parse_error(source + ": non-ASCII .npy header");
  }
  GE_ASSIGN_OR_RETURN(NpyHeader header, HeaderParser(header_text, source).parse());
  if (*header.fortran_order) {
    return unsupported(source +
                       ": .npy array is in Fortran order; only C order is supported "
                       "(save np.ascontiguousarray(arr))");
  }
  GE_ASSIGN_OR_RETURN(DataType type, dtype_from_descr(*header.descr, source));

  const std::vector<int64_t>& shape = *header.shape;
  const size_t item_size = element_size(type);
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim != 0 && count > std::numeric_limits<uint64_t>::max() / item_size / static_cast<uint64_t>(dim)) {
      return parse_error(source + ": .npy shape " + shape_to_string(shape) + " is too large");
    }
    count *= static_cast<uint64_t>(dim);
  }
  return NpyLayout{type, *header.descr, shape, header_start + header_length, count * item_size};
}

uint64_t npy_header_bytes(std::string_view prefix) {
  if (prefix.size() < 10 || prefix.substr(0, kMagic.size()) != kMagic) return 0;
  const size_t length_width = prefix[6] == 1 ? 2 : 4;
  if (prefix.size() < 8 + length_width) return 0;
  return 8 + length_width + read_le(prefix, 8, length_width);
}

Status check_npy_payload_size(const NpyLayout& layout, uint64_t payload_bytes, const std::string& source) {
  if (payload_bytes == layout.payload_bytes) return Status::ok();
  return parse_error(source + ": .npy payload is " + std::to_string(payload_bytes) + " bytes but " + layout.descr +
                     " " + shape_to_string(layout.shape) + " needs " + std::to_string(layout.payload_bytes));
}

Result<Tensor> parse_npy(std::string_view bytes, const std::string& source) {
  GE_ASSIGN_OR_RETURN(NpyLayout layout, parse_npy_header(bytes, source));
  const DataType type = layout.dtype;
  const std::vector<int64_t>& shape = layout.shape;
  const std::string_view payload = bytes.substr(layout.header_bytes);
  GE_RETURN_IF_ERROR(check_npy_payload_size(layout, payload.size(), source));
  if (type == DataType::kBool) {
    for (size_t i = 0; i < payload.size(); ++i) {
      if (payload[i] != 0 && payload[i] != 1) {
        return parse_error(source + ": .npy bool element " + std::to_string(i) + " is neither 0 nor 1");
      }
    }
  }
  Tensor tensor = Tensor::zeros(type, shape);
  if (!payload.empty()) std::memcpy(tensor.raw_data(), payload.data(), payload.size());
  return tensor;
}

Result<Tensor> read_npy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open .npy file '" + path.string() + "'");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return not_found("cannot read .npy file '" + path.string() + "'");
  return parse_npy(bytes, path.string());
}

Result<std::string> serialize_npy(const Tensor& tensor) {
  std::optional<std::string> descr = descr_for(tensor.dtype());
  if (!descr) {
    return unsupported("cannot write dtype " + std::string(data_type_name(tensor.dtype())) +
                       " to .npy (supported: float16/32/64, int8..64, uint8..64, bool)");
  }
  std::string header =
      "{'descr': '" + *descr + "', 'fortran_order': False, 'shape': " + shape_literal(tensor.shape()) + ", }";
  // numpy pads with spaces and a final newline so the payload starts 64-byte aligned.
  size_t prefix = 10;
  if (header.size() + 1 + prefix > 0xFFFF) prefix = 12;
  const size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  std::string out(kMagic);
  out += static_cast<char>(prefix == 10 ? 1 : 2);
  out += '\0';
  const size_t length = header.size();
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((length >> (8 * i)) & 0xFF);
  out += header;
  if (tensor.byte_size() > 0) out.append(static_cast<const char*>(tensor.raw_data()), tensor.byte_size());
  return out;
}

Status write_npy(const std::filesystem::path& path, const Tensor& tensor) {
  GE_ASSIGN_OR_RETURN(std::string bytes, serialize_npy(tensor));
  return write_file_atomically(path, bytes);
}

}  // namespace ge::tools
