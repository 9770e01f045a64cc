#pragma once
/// NumPy's .npz archives: a zip (stored or deflated) of .npy files, one array per member
/// named NAME.npy, as numpy.savez and numpy.savez_compressed write them.

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/status.h"
#include "ge/tensor.h"

namespace ge::tools {

/// The arrays of an archive, by name (the member name without ".npy"), in archive order.
using NamedArrays = std::vector<std::pair<std::string, Tensor>>;

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
