#pragma once
/// A small, strict reader and writer of ZIP archives, for NumPy's .npz (a zip of .npy
/// files): stored and deflated members, ZIP64 sizes and offsets, CRC-32 checked. Split,
/// encrypted and otherwise compressed archives are refused with a message naming the
/// archive and the member.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/status.h"

namespace ge::tools {

struct ZipMember {
  std::string name;  ///< the path inside the archive
  std::string data;  ///< the uncompressed contents
};

/// A member as the central directory declares it, before anything is inflated.
struct ZipEntry {
  std::string name;
  uint64_t uncompressed_size = 0;  ///< declared; reading holds the data to exactly this
  uint64_t compressed_size = 0;
  uint16_t method = 0;  ///< 0 stored, 8 deflate (open() refuses others)
  uint32_t crc = 0;
  uint64_t data_offset = 0;  ///< where the member's (compressed) bytes start in the archive
};

/// An archive whose members are read one at a time, on request: open() reads and checks
/// the directory only, so a caller can weigh the declared sizes before inflating any.
class ZipArchive {
 public:
  /// Reads the directory of the archive in `bytes`, which must outlive the archive. The
  /// errors of parse_zip() below, except those found only by reading a member's data.
  static Result<ZipArchive> open(std::string_view bytes, std::string source);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const std::string& source() const { return source_; }

  /// The first min(`bytes`, declared size) bytes of member `index`, inflating no more than
  /// that (not CRC-checked: the rest is not read).
  Result<std::string> read_prefix(size_t index, uint64_t bytes) const;
  /// The whole member, inflated into a buffer of its declared size (data that would run
  /// past it is an error, not a bigger buffer) and CRC-32 checked.
  Result<std::string> read(size_t index) const;

 private:
  ZipArchive(std::string_view bytes, std::string source, std::vector<ZipEntry> entries)
      : bytes_(bytes), source_(std::move(source)), entries_(std::move(entries)) {}
  std::string_view bytes_;
  std::string source_;
  std::vector<ZipEntry> entries_;
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
