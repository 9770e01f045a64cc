#include "expectations.h"

#include <fstream>
#include <sstream>

namespace ge::conformance {
namespace {

constexpr size_t kMaxReasonLength = 200;

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return {};
  const size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

}  // namespace

Result<ExpectedFailures> parse_expected_failures(const std::string& text, const std::string& source) {
  ExpectedFailures failures;
  std::istringstream lines(text);
  std::string line;
  int line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    const std::string where = source + ":" + std::to_string(line_number) + ": ";
    const std::string content = trim(line);
    if (content.empty() || content[0] == '#') continue;
    const size_t hash = content.find('#');
    const std::string id = trim(content.substr(0, hash));
    const std::string reason = hash == std::string::npos ? std::string() : trim(content.substr(hash + 1));
    if (id.find_first_of(" \t") != std::string::npos) {
      return parse_error(where + "expected '<category>/<case>  # reason', got '" + content + "'");
    }
    const size_t slash = id.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == id.size() ||
        id.find('/', slash + 1) != std::string::npos) {
      return parse_error(where + "case id '" + id + "' is not of the form <category>/<case>");
    }
    if (!failures.emplace(id, reason).second) return parse_error(where + "'" + id + "' is listed twice");
  }
  return failures;
}

Result<ExpectedFailures> read_expected_failures(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open expected-failures file '" + path.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_expected_failures(text.str(), path.string());
}

std::string format_expected_failures(const ExpectedFailures& failures) {
  std::ostringstream out;
  out << "# ONNX backend test cases expected to fail on the CPU backend, one per line:\n"
         "#   <category>/<case>  # reason\n"
         "# ge-conformance fails when a case not listed here fails, and reports listed cases that\n"
         "# pass so they can be removed. Regenerate with --update-expectations (see README.md).\n";
  for (const auto& [id, reason] : failures) {
    out << id;
    if (!reason.empty()) out << "  # " << reason;
    out << "\n";
  }
  return out.str();
}

Status write_expected_failures(const ExpectedFailures& failures, const std::filesystem::path& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return invalid_argument("cannot write expected-failures file '" + path.string() + "'");
  out << format_expected_failures(failures);
  out.close();
  if (!out) return invalid_argument("error while writing expected-failures file '" + path.string() + "'");
  return Status::ok();
}

ExpectedFailures merge_run_into_expectations(const ExpectedFailures& existing, const std::set<std::string>& run_ids,
                                             const std::set<std::string>& whole_categories,
                                             const ExpectedFailures& failures) {
  ExpectedFailures merged;
  for (const auto& [id, reason] : existing) {
    if (run_ids.count(id) > 0 || whole_categories.count(id.substr(0, id.find('/'))) > 0) continue;
    merged.emplace(id, reason);
  }
  for (const auto& [id, reason] : failures) merged[id] = reason;
  return merged;
}

std::string one_line_reason(const std::string& message) {
  std::istringstream lines(message);
  std::string line;
  std::string reason;
  while (std::getline(lines, line)) {
    reason = trim(line);
    if (!reason.empty()) break;
  }
  for (char& c : reason) {
    if (c == '\t') c = ' ';
  }
  if (reason.size() > kMaxReasonLength) {
    size_t cut = kMaxReasonLength - 3;
    // Never split a UTF-8 sequence: back up over continuation bytes.
    while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0u) == 0x80u) --cut;
    reason = reason.substr(0, cut) + "...";
  }
  return reason;
}

}  // namespace ge::conformance
