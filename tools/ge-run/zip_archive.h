#pragma once
/// A small, strict reader and writer of ZIP archives, for NumPy's .npz (a zip of .npy
/// files): stored and deflated members, ZIP64 sizes and offsets, CRC-32 checked. Split,
/// encrypted and otherwise compressed archives are refused with a message naming the
/// archive and the member.

#include <string>
#include <string_view>
#include <vector>

#include "ge/status.h"

namespace ge::tools {

struct ZipMember {
  std::string name;  ///< the path inside the archive
  std::string data;  ///< the uncompressed contents
};

/// Decodes every member of the archive in `bytes`, in central-directory order. `source`
/// names the archive in messages. kParseError for a malformed archive (no end record,
/// offsets or sizes out of bounds, a bad CRC, a corrupt deflate stream); kUnsupported for
/// split or encrypted archives and compression methods other than stored and deflate.
Result<std::vector<ZipMember>> parse_zip(std::string_view bytes, const std::string& source);

/// Encodes `members` as a ZIP archive, each member stored (`deflate` false) or deflated.
/// ZIP64 records are written where a size or offset needs them.
Result<std::string> serialize_zip(const std::vector<ZipMember>& members, bool deflate);

}  // namespace ge::tools
