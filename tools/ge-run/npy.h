#pragma once
/// A small, strict reader and writer for NumPy's .npy format (versions 1.0, 2.0, 3.0):
/// little-endian numeric and bool dtypes in C order only. Anything else is refused with a
/// message naming the file and what it held, never guessed at.

#include <filesystem>
#include <string>
#include <string_view>

#include "ge/status.h"
#include "ge/tensor.h"

namespace ge::tools {

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
