#include "npz.h"

#include <fstream>
#include <iterator>
#include <set>
#include <system_error>

#include "npy.h"
#include "zip_archive.h"

namespace ge::tools {

Result<NamedArrays> parse_npz(std::string_view bytes, const std::string& source) {
  GE_ASSIGN_OR_RETURN(std::vector<ZipMember> members, parse_zip(bytes, source));
  constexpr std::string_view kSuffix = ".npy";
  NamedArrays arrays;
  std::set<std::string> names;
  for (const ZipMember& member : members) {
    const std::string& file = member.name;
    if (file.size() <= kSuffix.size() || file.compare(file.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
      return parse_error("'" + source + "' is not a .npz archive: member '" + file +
                         "' is not a .npy file (numpy.savez names every member NAME.npy)");
    }
    std::string name = file.substr(0, file.size() - kSuffix.size());
    if (!names.insert(name).second) return parse_error("'" + source + "' holds array '" + name + "' twice");
    GE_ASSIGN_OR_RETURN(Tensor tensor, parse_npy(member.data, source + ":" + file));
    arrays.emplace_back(std::move(name), std::move(tensor));
  }
  return arrays;
}

Result<NamedArrays> read_npz(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return not_found(".npz file '" + path.string() + "' does not exist or is not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open .npz file '" + path.string() + "'");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return invalid_argument("error while reading '" + path.string() + "'");
  return parse_npz(bytes, path.string());
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
