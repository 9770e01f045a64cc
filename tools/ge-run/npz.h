#pragma once
/// NumPy's .npz archives: a zip (stored or deflated) of .npy files, one array per member
/// named NAME.npy, as numpy.savez and numpy.savez_compressed write them.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/status.h"
#include "ge/tensor.h"
#include "npy.h"
#include "zip_archive.h"

namespace ge::tools {

/// The arrays of an archive, by name (the member name without ".npy"), in archive order.
using NamedArrays = std::vector<std::pair<std::string, Tensor>>;

/// A .npz archive opened for reading: every array's dtype and shape come from its .npy
/// header, inflated alone, so a caller checks them (against a model, a memory limit)
/// before any payload is inflated. A 3 MB archive that inflates to gigabytes costs
/// nothing until load(), which inflates exactly the declared bytes.
class NpzArchive {
 public:
  struct Array {
    std::string name;  ///< the member name without ".npy"
    NpyLayout layout;
  };

  /// Reads the archive's directory and each member's .npy header from `bytes`. Errors:
  /// parse_npz()'s, and before anything is inflated: a member whose declared size is
  /// not its header plus what its dtype and shape need, or an array larger than
  /// `memory_limit` (0: no limit).
  static Result<NpzArchive> parse(std::string bytes, const std::string& source, size_t memory_limit = 0);
  /// Reads `path` and parses it; kNotFound when it cannot be opened.
  static Result<NpzArchive> open(const std::filesystem::path& path, size_t memory_limit = 0);

  const std::string& source() const { return zip_.source(); }
  const std::vector<Array>& arrays() const { return arrays_; }
  /// Inflates and decodes array `index` (CRC-checked, then the .npy reader's checks).
  Result<Tensor> load(size_t index) const;

 private:
  NpzArchive(std::unique_ptr<const std::string> bytes, ZipArchive zip, std::vector<Array> arrays)
      : bytes_(std::move(bytes)), zip_(std::move(zip)), arrays_(std::move(arrays)) {}
  std::unique_ptr<const std::string> bytes_;  // what zip_ reads; on the heap, so moves keep it in place
  ZipArchive zip_;
  std::vector<Array> arrays_;
};

/// Decodes the bytes of a .npz archive. `source` names the file in messages. Errors: the
/// zip reader's (zip_archive.h); a member not named *.npy, a duplicate name, or a member
/// that is not a valid .npy (the .npy reader's message, naming archive and member).
Result<NamedArrays> parse_npz(std::string_view bytes, const std::string& source);

/// Reads and decodes `path`; kNotFound when it cannot be opened.
Result<NamedArrays> read_npz(const std::filesystem::path& path);

/// Encodes `arrays` as a .npz archive (deflated like numpy.savez_compressed when
/// `compress`). kUnsupported for dtypes .npy cannot hold; kInvalidArgument for an empty
/// or duplicate name.
Result<std::string> serialize_npz(const NamedArrays& arrays, bool compress);

}  // namespace ge::tools
