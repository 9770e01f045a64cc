#include "report.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

namespace ge::conformance {

std::string format_category_report(const std::string& category, const std::vector<CaseResult>& results) {
  struct Counts {
    int passed = 0;
    int failed = 0;
  };
  std::map<std::string, Counts> rows;
  Counts total;
  for (const CaseResult& result : results) {
    Counts& row = rows[result.test_case->table_key];
    ++(result.passed ? row.passed : row.failed);
    ++(result.passed ? total.passed : total.failed);
  }
  size_t width = 2;
  for (const auto& [key, counts] : rows) width = std::max(width, key.size());

  std::ostringstream out;
  out << "  " << std::left << std::setw(static_cast<int>(width)) << (category == "node" ? "op" : "case")
      << "  passed  failed\n";
  for (const auto& [key, counts] : rows) {
    out << "  " << std::left << std::setw(static_cast<int>(width)) << key << "  " << std::right << std::setw(6)
        << counts.passed << "  " << std::setw(6) << counts.failed << "\n";
  }
  out << category << ": " << total.passed << " passed, " << total.failed << " failed\n";
  return out.str();
}

ExpectationCheck check_expectations(const std::vector<CaseResult>& results, const ExpectedFailures& expected) {
  ExpectationCheck check;
  for (const CaseResult& result : results) {
    const bool listed = expected.count(result.test_case->id()) > 0;
    if (!result.passed && !listed) check.unexpected_failures.push_back(&result);
    if (result.passed && listed) check.newly_passing.push_back(&result);
  }
  return check;
}

}  // namespace ge::conformance
