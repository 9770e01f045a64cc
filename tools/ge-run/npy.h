#pragma once
/// A small, strict reader and writer for NumPy's .npy format (versions 1.0, 2.0, 3.0):
/// little-endian numeric and bool dtypes in C order only. Anything else is refused with a
/// message naming the file and what it held, never guessed at.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ge/status.h"
#include "ge/tensor.h"

namespace ge::tools {

/// What a .npy header declares: enough to weigh an array before reading its payload.
struct NpyLayout {
  DataType dtype = DataType::kUndefined;
  std::string descr;  ///< the dtype as written, e.g. "<f4"
  std::vector<int64_t> shape;
  uint64_t header_bytes = 0;   ///< magic, version, length and dictionary: where the payload starts
  uint64_t payload_bytes = 0;  ///< element size times element count
};

/// The most bytes a .npy header may take; numpy itself reads no more than 10,000 by default.
constexpr uint64_t kMaxNpyHeaderBytes = uint64_t{1} << 20;

/// Decodes the header at the start of `bytes` (the payload may be absent or partial). The
/// errors of parse_npy() that concern the header, and a header over kMaxNpyHeaderBytes.
Result<NpyLayout> parse_npy_header(std::string_view bytes, const std::string& source);

/// The bytes the header at the start of `prefix` (its first 12 bytes suffice) says it
/// takes, magic included; 0 when `prefix` does not start a .npy header.
uint64_t npy_header_bytes(std::string_view prefix);

/// kParseError unless `payload_bytes` is what `layout` declares (its dtype and shape).
Status check_npy_payload_size(const NpyLayout& layout, uint64_t payload_bytes, const std::string& source);

/// Decodes the bytes of a .npy file. `source` names the file in error messages.
/// Accepted dtypes: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 ('<' or, for one-byte types, '|').
/// Fails (kParseError / kUnsupported) on a bad magic, truncated or oversized payload,
/// malformed header, big-endian or other dtypes, or fortran_order True.
Result<Tensor> parse_npy(std::string_view bytes, const std::string& source);

/// Reads and decodes `path`; kNotFound when it cannot be opened.
Result<Tensor> read_npy(const std::filesystem::path& path);

/// Encodes `tensor` as .npy bytes (version 1.0, or 2.0 when the header needs it).
/// kUnsupported for dtypes the format subset above does not cover (strings, bfloat16,
/// complex).
Result<std::string> serialize_npy(const Tensor& tensor);

/// Encodes and writes `tensor` to `path`.
Status write_npy(const std::filesystem::path& path, const Tensor& tensor);

}  // namespace ge::tools
