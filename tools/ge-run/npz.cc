#include "npz.h"

#include <fstream>
#include <iterator>
#include <set>
#include <system_error>

#include "ge/memory_limit.h"
#include "ge/tensor_desc.h"

namespace ge::tools {

Result<NpzArchive> NpzArchive::parse(std::string bytes, const std::string& source, size_t memory_limit) {
  auto owned = std::make_unique<const std::string>(std::move(bytes));
  GE_ASSIGN_OR_RETURN(ZipArchive zip, ZipArchive::open(*owned, source));
  constexpr std::string_view kSuffix = ".npy";
  std::vector<Array> arrays;
  std::set<std::string> names;
  for (size_t i = 0; i < zip.entries().size(); ++i) {
    const ZipEntry& entry = zip.entries()[i];
    const std::string& file = entry.name;
    if (file.size() <= kSuffix.size() || file.compare(file.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
      return parse_error("'" + source + "' is not a .npz archive: member '" + file +
                         "' is not a .npy file (numpy.savez names every member NAME.npy)");
    }
    std::string name = file.substr(0, file.size() - kSuffix.size());
    if (!names.insert(name).second) return parse_error("'" + source + "' holds array '" + name + "' twice");
    const std::string where = source + ":" + file;
    // The fixed part first, then the whole header: only the header is inflated.
    GE_ASSIGN_OR_RETURN(std::string prefix, zip.read_prefix(i, 12));
    if (const uint64_t header = npy_header_bytes(prefix); header > prefix.size() && header <= kMaxNpyHeaderBytes) {
      GE_ASSIGN_OR_RETURN(prefix, zip.read_prefix(i, header));
    }
    GE_ASSIGN_OR_RETURN(NpyLayout layout, parse_npy_header(prefix, where));
    // The zip entry's declared size and the header's must agree before either is trusted.
    const uint64_t declared_payload =
        entry.uncompressed_size >= layout.header_bytes ? entry.uncompressed_size - layout.header_bytes : 0;
    GE_RETURN_IF_ERROR(check_npy_payload_size(layout, declared_payload, where));
    GE_RETURN_IF_ERROR(check_memory_limit(where + " (" + layout.descr + " " + shape_to_string(layout.shape) + ")",
                                          layout.payload_bytes, memory_limit));
    arrays.push_back(Array{std::move(name), std::move(layout)});
  }
  return NpzArchive(std::move(owned), std::move(zip), std::move(arrays));
}

Result<NpzArchive> NpzArchive::open(const std::filesystem::path& path, size_t memory_limit) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return not_found(".npz file '" + path.string() + "' does not exist or is not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open .npz file '" + path.string() + "'");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return invalid_argument("error while reading '" + path.string() + "'");
  return parse(std::move(bytes), path.string(), memory_limit);
}

Result<Tensor> NpzArchive::load(size_t index) const {
  GE_ASSIGN_OR_RETURN(std::string data, zip_.read(index));
  return parse_npy(data, source() + ":" + zip_.entries().at(index).name);
}

namespace {

Result<NamedArrays> load_all(const NpzArchive& archive) {
  NamedArrays arrays;
  for (size_t i = 0; i < archive.arrays().size(); ++i) {
    GE_ASSIGN_OR_RETURN(Tensor tensor, archive.load(i));
    arrays.emplace_back(archive.arrays()[i].name, std::move(tensor));
  }
  return arrays;
}

}  // namespace

Result<NamedArrays> parse_npz(std::string_view bytes, const std::string& source) {
  GE_ASSIGN_OR_RETURN(NpzArchive archive, NpzArchive::parse(std::string(bytes), source));
  return load_all(archive);
}

Result<NamedArrays> read_npz(const std::filesystem::path& path) {
  GE_ASSIGN_OR_RETURN(NpzArchive archive, NpzArchive::open(path));
  return load_all(archive);
}

Result<std::string> serialize_npz(const NamedArrays& arrays, bool compress) {
  std::vector<ZipMember> members;
  std::set<std::string> names;
  for (const auto& [name, tensor] : arrays) {
    if (name.empty()) return invalid_argument(".npz array with an empty name");
    if (!names.insert(name).second) return invalid_argument(".npz array '" + name + "' given twice");
    Result<std::string> npy = serialize_npy(tensor);
    if (!npy.is_ok()) return npy.status().with_context(".npz array '" + name + "'");
    members.push_back({name + ".npy", std::move(npy).value()});
  }
  return serialize_zip(members, compress);
}

}  // namespace ge::tools
