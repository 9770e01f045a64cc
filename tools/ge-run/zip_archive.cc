#include "zip_archive.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

namespace ge::tools {
namespace {

static_assert(std::endian::native == std::endian::little, "zip I/O assumes a little-endian host");

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kZip64EndSize = 56;
constexpr size_t kZip64LocatorSize = 20;
// Deflate cannot expand data by more than about 1032:1; a larger claimed size is a lie.
constexpr uint64_t kMaxDeflateRatio = 1032;

/// Bounds-checked little-endian reads from the archive's bytes.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& source) : bytes_(bytes), source_(source) {}

  bool fits(uint64_t offset, uint64_t size) const { return offset <= bytes_.size() && size <= bytes_.size() - offset; }
  template <typename T>
  T read(uint64_t offset) const {  // callers check fits() first
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }
  std::string_view slice(uint64_t offset, uint64_t size) const { return bytes_.substr(offset, size); }
  size_t size() const { return bytes_.size(); }
  const std::string& source() const { return source_; }
  Status error(const std::string& what) const {
    return parse_error("'" + source_ + "' is not a valid zip archive: " + what);
  }

 private:
  std::string_view bytes_;
  const std::string& source_;
};

struct CentralEntry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_offset = 0;
};

struct Directory {
  uint64_t entries = 0;
  uint64_t size = 0;
  uint64_t offset = 0;
};

Result<Directory> find_directory(const Reader& in) {
  if (in.size() < kEndSize) return in.error("too short for an end-of-central-directory record");
  // The end record sits at the end, followed by a comment of at most 65535 bytes.
  const uint64_t lowest = in.size() > kEndSize + 0xFFFF ? in.size() - kEndSize - 0xFFFF : 0;
  std::optional<uint64_t> end;
  for (uint64_t at = in.size() - kEndSize + 1; at-- > lowest;) {
    if (in.read<uint32_t>(at) == kEndSignature && at + kEndSize + in.read<uint16_t>(at + 20) == in.size()) {
      end = at;
      break;
    }
  }
  if (!end) return in.error("no end-of-central-directory record (a truncated file, or not a zip)");
  if (in.read<uint16_t>(*end + 4) != 0 || in.read<uint16_t>(*end + 6) != 0) {
    return unsupported("'" + in.source() + "' is a split (multi-disk) zip archive, which is not supported");
  }
  Directory directory{in.read<uint16_t>(*end + 10), in.read<uint32_t>(*end + 12), in.read<uint32_t>(*end + 16)};
  const bool zip64 = directory.entries == 0xFFFF || directory.size == 0xFFFFFFFF || directory.offset == 0xFFFFFFFF;
  if (zip64 || (*end >= kZip64LocatorSize && in.read<uint32_t>(*end - kZip64LocatorSize) == kZip64LocatorSignature)) {
    if (*end < kZip64LocatorSize || in.read<uint32_t>(*end - kZip64LocatorSize) != kZip64LocatorSignature) {
      return in.error("the end record needs a ZIP64 record, but there is no ZIP64 locator");
    }
    const uint64_t record = in.read<uint64_t>(*end - kZip64LocatorSize + 8);
    if (!in.fits(record, kZip64EndSize) || in.read<uint32_t>(record) != kZip64EndSignature) {
      return in.error("the ZIP64 locator points at no ZIP64 end record");
    }
    directory = {in.read<uint64_t>(record + 32), in.read<uint64_t>(record + 40), in.read<uint64_t>(record + 48)};
  }
  if (!in.fits(directory.offset, directory.size)) return in.error("the central directory lies outside the file");
  return directory;
}

/// Replaces the sizes and offset set to 0xFFFFFFFF by the ZIP64 extra field's values.
Status apply_zip64_extra(const Reader& in, uint64_t extra, uint64_t extra_size, CentralEntry& entry) {
  const bool need_uncompressed = entry.uncompressed_size == 0xFFFFFFFF;
  const bool need_compressed = entry.compressed_size == 0xFFFFFFFF;
  const bool need_offset = entry.local_offset == 0xFFFFFFFF;
  for (uint64_t at = extra; at + 4 <= extra + extra_size;) {
    const uint16_t id = in.read<uint16_t>(at);
    const uint16_t size = in.read<uint16_t>(at + 2);
    if (at + 4 + size > extra + extra_size) return in.error("member '" + entry.name + "' has a truncated extra field");
    if (id == kZip64ExtraId) {
      uint64_t field = at + 4;
      auto take = [&](bool needed, uint64_t& target) {
        if (!needed) return true;
        if (field + 8 > at + 4 + size) return false;
        target = in.read<uint64_t>(field);
        field += 8;
        return true;
      };
      if (!take(need_uncompressed, entry.uncompressed_size) || !take(need_compressed, entry.compressed_size) ||
          !take(need_offset, entry.local_offset)) {
        return in.error("member '" + entry.name + "' has a ZIP64 extra field too short for its sizes");
      }
      return Status::ok();
    }
    at += 4 + size;
  }
  if (need_uncompressed || need_compressed || need_offset) {
    return in.error("member '" + entry.name + "' needs ZIP64 sizes but has no ZIP64 extra field");
  }
  return Status::ok();
}

Result<std::vector<CentralEntry>> read_directory(const Reader& in, const Directory& directory) {
  std::vector<CentralEntry> entries;
  uint64_t at = directory.offset;
  const uint64_t end = directory.offset + directory.size;
  for (uint64_t i = 0; i < directory.entries; ++i) {
    if (at + kCentralHeaderSize > end || in.read<uint32_t>(at) != kCentralHeaderSignature) {
      return in.error("central directory entry " + std::to_string(i) + " is missing or malformed");
    }
    CentralEntry entry;
    entry.flags = in.read<uint16_t>(at + 8);
    entry.method = in.read<uint16_t>(at + 10);
    entry.crc = in.read<uint32_t>(at + 16);
    entry.compressed_size = in.read<uint32_t>(at + 20);
    entry.uncompressed_size = in.read<uint32_t>(at + 24);
    const uint16_t name_size = in.read<uint16_t>(at + 28);
    const uint16_t extra_size = in.read<uint16_t>(at + 30);
    const uint16_t comment_size = in.read<uint16_t>(at + 32);
    entry.local_offset = in.read<uint32_t>(at + 42);
    const uint64_t next = at + kCentralHeaderSize + name_size + extra_size + comment_size;
    if (next > end) return in.error("central directory entry " + std::to_string(i) + " runs past the directory");
    entry.name = std::string(in.slice(at + kCentralHeaderSize, name_size));
    GE_RETURN_IF_ERROR(apply_zip64_extra(in, at + kCentralHeaderSize + name_size, extra_size, entry));
    entries.push_back(std::move(entry));
    at = next;
  }
  return entries;
}

/// Inflates `compressed` into exactly `uncompressed_size` bytes; with `whole` false, only
/// the first `uncompressed_size` bytes of a longer member (the rest is left unread).
Result<std::string> inflate_member(std::string_view compressed, uint64_t uncompressed_size, const std::string& what,
                                   bool whole = true) {
  std::string out(static_cast<size_t>(uncompressed_size), '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return internal_error("zlib: inflateInit2 failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = 0;
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = 0;
  // zlib counts in uInt: feed and drain in pieces that fit.
  constexpr uint64_t kChunk = std::numeric_limits<uInt>::max();
  uint64_t in_left = compressed.size(), out_left = out.size();
  int result = Z_OK;
  while (result == Z_OK) {
    if (stream.avail_in == 0 && in_left > 0) {
      stream.avail_in = static_cast<uInt>(std::min(in_left, kChunk));
      in_left -= stream.avail_in;
    }
    if (stream.avail_out == 0 && out_left > 0) {
      stream.avail_out = static_cast<uInt>(std::min(out_left, kChunk));
      out_left -= stream.avail_out;
    }
    if (!whole && stream.total_out == uncompressed_size) break;
    result = inflate(&stream, Z_NO_FLUSH);  // Z_BUF_ERROR: no progress possible, input or output used up
  }
  const uint64_t produced = stream.total_out;
  const std::string message = stream.msg != nullptr ? stream.msg : "";
  inflateEnd(&stream);
  if (!whole && result == Z_OK && produced == uncompressed_size) return out;
  if (result != Z_STREAM_END) {
    if (result == Z_BUF_ERROR && produced == uncompressed_size) {
      return parse_error(what + " inflates to more than its declared " + std::to_string(uncompressed_size) + " bytes");
    }
    if (result == Z_BUF_ERROR) return parse_error(what + ": the deflate stream is truncated");
    return parse_error(what + ": corrupt deflate stream" + (message.empty() ? "" : " (" + message + ")"));
  }
  if (produced != uncompressed_size) {
    return parse_error(what + " inflates to " + std::to_string(produced) + " bytes but declares " +
                       std::to_string(uncompressed_size));
  }
  return out;
}

uint32_t crc32_of(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t at = 0; at < data.size();) {
    const size_t piece = std::min<size_t>(data.size() - at, std::numeric_limits<uInt>::max());
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data() + at), static_cast<uInt>(piece));
    at += piece;
  }
  return static_cast<uint32_t>(crc);
}

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

Result<std::string> deflate_data(std::string_view data) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return internal_error("zlib: deflateInit2 failed");
  }
  std::string out;
  constexpr size_t kChunk = 1 << 20;
  uint64_t in_left = data.size();
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  int result = Z_OK;
  do {
    if (stream.avail_in == 0 && in_left > 0) {
      stream.avail_in = static_cast<uInt>(std::min<uint64_t>(in_left, kChunk));
      in_left -= stream.avail_in;
    }
    const size_t before = out.size();
    out.resize(before + kChunk);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    stream.avail_out = kChunk;
    result = deflate(&stream, in_left == 0 ? Z_FINISH : Z_NO_FLUSH);
    out.resize(before + kChunk - stream.avail_out);
  } while (result == Z_OK || result == Z_BUF_ERROR);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return internal_error("zlib: deflate failed");
  return out;
}

}  // namespace

Result<ZipArchive> ZipArchive::open(std::string_view bytes, std::string source) {
  const Reader in(bytes, source);
  GE_ASSIGN_OR_RETURN(Directory directory, find_directory(in));
  GE_ASSIGN_OR_RETURN(std::vector<CentralEntry> central, read_directory(in, directory));
  std::vector<ZipEntry> entries;
  entries.reserve(central.size());
  for (CentralEntry& entry : central) {
    const std::string what = "member '" + entry.name + "' of '" + source + "'";
    if ((entry.flags & 0x1) != 0) return unsupported(what + " is encrypted, which is not supported");
    if (!in.fits(entry.local_offset, kLocalHeaderSize) ||
        in.read<uint32_t>(entry.local_offset) != kLocalHeaderSignature) {
      return in.error("member '" + entry.name + "' has no local header where the directory points");
    }
    // The local header's sizes may be zero (streamed) or ZIP64 placeholders: the
    // directory's are the ones to trust; only the name and extra lengths matter here.
    const uint64_t data_offset = entry.local_offset + kLocalHeaderSize + in.read<uint16_t>(entry.local_offset + 26) +
                                 in.read<uint16_t>(entry.local_offset + 28);
    if (!in.fits(data_offset, entry.compressed_size)) {
      return in.error("member '" + entry.name + "' has " + std::to_string(entry.compressed_size) +
                      " bytes of data running past the end of the file");
    }
    if (entry.method == kMethodStored) {
      if (entry.compressed_size != entry.uncompressed_size) {
        return in.error("stored member '" + entry.name + "' has different compressed and uncompressed sizes");
      }
    } else if (entry.method == kMethodDeflate) {
      if (entry.uncompressed_size / kMaxDeflateRatio > entry.compressed_size + 1) {
        return in.error("member '" + entry.name + "' claims " + std::to_string(entry.uncompressed_size) +
                        " bytes from " + std::to_string(entry.compressed_size) + ", more than deflate can give");
      }
    } else {
      return unsupported(what + " uses compression method " + std::to_string(entry.method) +
                         "; only stored (0) and deflate (8) are supported");
    }
    entries.push_back(ZipEntry{std::move(entry.name), entry.uncompressed_size, entry.compressed_size, entry.method,
                               entry.crc, data_offset});
  }
  return ZipArchive(bytes, std::move(source), std::move(entries));
}

Result<std::string> ZipArchive::read_prefix(size_t index, uint64_t bytes) const {
  const ZipEntry& entry = entries_.at(index);
  const std::string_view stored = bytes_.substr(entry.data_offset, entry.compressed_size);
  const uint64_t wanted = std::min(bytes, entry.uncompressed_size);
  if (entry.method == kMethodStored) return std::string(stored.substr(0, wanted));
  return inflate_member(stored, wanted, "member '" + entry.name + "' of '" + source_ + "'",
                        wanted == entry.uncompressed_size);
}

Result<std::string> ZipArchive::read(size_t index) const {
  const ZipEntry& entry = entries_.at(index);
  const std::string_view stored = bytes_.substr(entry.data_offset, entry.compressed_size);
  std::string data;
  if (entry.method == kMethodStored) {
    data = std::string(stored);
  } else {
    GE_ASSIGN_OR_RETURN(
        data, inflate_member(stored, entry.uncompressed_size, "member '" + entry.name + "' of '" + source_ + "'"));
  }
  if (crc32_of(data) != entry.crc) {
    return parse_error("'" + source_ + "' is not a valid zip archive: member '" + entry.name +
                       "' fails its CRC-32 check");
  }
  return data;
}

Result<std::vector<ZipMember>> parse_zip(std::string_view bytes, const std::string& source) {
  GE_ASSIGN_OR_RETURN(ZipArchive archive, ZipArchive::open(bytes, source));
  std::vector<ZipMember> members;
  members.reserve(archive.entries().size());
  for (size_t i = 0; i < archive.entries().size(); ++i) {
    GE_ASSIGN_OR_RETURN(std::string data, archive.read(i));
    members.push_back(ZipMember{archive.entries()[i].name, std::move(data)});
  }
  return members;
}

Result<std::string> serialize_zip(const std::vector<ZipMember>& members, bool deflate) {
  std::string out, directory;
  for (const ZipMember& member : members) {
    if (member.name.size() > 0xFFFF) return invalid_argument("zip member name longer than 65535 bytes");
    std::string compressed;
    if (deflate) {
      GE_ASSIGN_OR_RETURN(compressed, deflate_data(member.data));
    }
    const std::string_view payload = deflate ? std::string_view(compressed) : std::string_view(member.data);
    const uint32_t crc = crc32_of(member.data);
    const uint64_t offset = out.size();
    const bool zip64 = member.data.size() >= 0xFFFFFFFF || payload.size() >= 0xFFFFFFFF || offset >= 0xFFFFFFFF;
    const uint16_t version = zip64 ? 45 : 20;
    const uint16_t method = deflate ? kMethodDeflate : kMethodStored;
    const uint32_t small_compressed = zip64 ? 0xFFFFFFFF : static_cast<uint32_t>(payload.size());
    const uint32_t small_uncompressed = zip64 ? 0xFFFFFFFF : static_cast<uint32_t>(member.data.size());
    std::string local_extra, extra;  // ZIP64: the local header's holds the sizes, the directory's the offset too
    if (zip64) {
      put<uint16_t>(local_extra, kZip64ExtraId);
      put<uint16_t>(local_extra, 16);
      put<uint64_t>(local_extra, member.data.size());
      put<uint64_t>(local_extra, payload.size());
      put<uint16_t>(extra, kZip64ExtraId);
      put<uint16_t>(extra, 24);
      put<uint64_t>(extra, member.data.size());
      put<uint64_t>(extra, payload.size());
      put<uint64_t>(extra, offset);
    }
    put<uint32_t>(out, kLocalHeaderSignature);
    for (uint16_t field : {version, uint16_t{0}, method, uint16_t{0}, uint16_t{0x21}}) put<uint16_t>(out, field);
    put<uint32_t>(out, crc);
    put<uint32_t>(out, small_compressed);
    put<uint32_t>(out, small_uncompressed);
    put<uint16_t>(out, static_cast<uint16_t>(member.name.size()));
    put<uint16_t>(out, static_cast<uint16_t>(local_extra.size()));
    out += member.name;
    out += local_extra;
    out += payload;
    // Central directory entry.
    put<uint32_t>(directory, kCentralHeaderSignature);
    for (uint16_t field : {version, version, uint16_t{0}, method, uint16_t{0}, uint16_t{0x21}})
      put<uint16_t>(directory, field);
    put<uint32_t>(directory, crc);
    put<uint32_t>(directory, small_compressed);
    put<uint32_t>(directory, small_uncompressed);
    for (uint16_t field : {static_cast<uint16_t>(member.name.size()), static_cast<uint16_t>(extra.size()), uint16_t{0},
                           uint16_t{0}, uint16_t{0}})
      put<uint16_t>(directory, field);
    put<uint32_t>(directory, 0);  // external attributes
    put<uint32_t>(directory, zip64 ? 0xFFFFFFFF : static_cast<uint32_t>(offset));
    directory += member.name;
    directory += extra;
  }
  const uint64_t directory_offset = out.size();
  const bool zip64 = members.size() >= 0xFFFF || directory_offset >= 0xFFFFFFFF || directory.size() >= 0xFFFFFFFF;
  out += directory;
  if (zip64) {
    const uint64_t record = out.size();
    put<uint32_t>(out, kZip64EndSignature);
    put<uint64_t>(out, kZip64EndSize - 12);
    put<uint16_t>(out, 45);
    put<uint16_t>(out, 45);
    put<uint32_t>(out, 0);
    put<uint32_t>(out, 0);
    put<uint64_t>(out, members.size());
    put<uint64_t>(out, members.size());
    put<uint64_t>(out, directory.size());
    put<uint64_t>(out, directory_offset);
    put<uint32_t>(out, kZip64LocatorSignature);
    put<uint32_t>(out, 0);
    put<uint64_t>(out, record);
    put<uint32_t>(out, 1);
  }
  put<uint32_t>(out, kEndSignature);
  put<uint16_t>(out, 0);
  put<uint16_t>(out, 0);
  const uint16_t count = zip64 ? 0xFFFF : static_cast<uint16_t>(members.size());
  put<uint16_t>(out, count);
  put<uint16_t>(out, count);
  put<uint32_t>(out, zip64 ? 0xFFFFFFFF : static_cast<uint32_t>(directory.size()));
  put<uint32_t>(out, zip64 ? 0xFFFFFFFF : static_cast<uint32_t>(directory_offset));
  put<uint16_t>(out, 0);
  return out;
}

}  // namespace ge::tools
