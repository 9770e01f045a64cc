// StringNormalizer (opset 10): drops the strings of X ([C] or [1, C]) that equal one of
// `stopwords` (compared per character after lower-casing when is_case_sensitive=0), then
// changes the case of the rest (case_change_action LOWER / UPPER / NONE) under `locale`
// (default en_US.UTF-8; C.UTF-8 when that is not installed). When every string is dropped
// the output is one empty string. Strings are UTF-8; a byte that starts no valid
// sequence is kept as it is.
//
// The output length depends on the data: the output desc must already hold it (run-time
// shape inference cannot give it today; see the family report). A launch whose kept count
// differs from the output length returns kRuntimeSizeMismatch.

#include <locale>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/special_common.h"
#include "text/registration.h"

namespace ge::reference_kernels::special {
namespace {

enum class CaseChange { kNone, kLower, kUpper };

struct StringNormalizerParams {
  CaseChange change = CaseChange::kNone;
  bool case_sensitive = false;
  std::vector<std::string> stopwords;
  std::locale locale;  // keeps `ctype` alive
  const std::ctype<wchar_t>* ctype = nullptr;
  int64_t input_count = 0;
  int64_t output_count = 0;
};

// Decodes the code point at text[pos]; `length` receives its byte count. Returns -1 for
// a byte that starts no valid sequence (length 1).
int32_t decode_utf8(std::string_view text, size_t pos, size_t& length) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  length = 1;
  if (lead < 0x80) return lead;
  size_t count;
  int32_t code;
  if ((lead & 0xE0) == 0xC0) {
    count = 2;
    code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    count = 3;
    code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    count = 4;
    code = lead & 0x07;
  } else {
    return -1;
  }
  if (pos + count > text.size()) return -1;
  for (size_t i = 1; i < count; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return -1;
    code = (code << 6) | (byte(pos + i) & 0x3F);
  }
  static constexpr int32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[count] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return -1;
  length = count;
  return code;
}

void append_utf8(std::string& out, int32_t code) {
  const auto put = [&out](int value) { out.push_back(static_cast<char>(value)); };
  if (code < 0x80) {
    put(code);
  } else if (code < 0x800) {
    put(0xC0 | (code >> 6));
    put(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    put(0xE0 | (code >> 12));
    put(0x80 | ((code >> 6) & 0x3F));
    put(0x80 | (code & 0x3F));
  } else {
    put(0xF0 | (code >> 18));
    put(0x80 | ((code >> 12) & 0x3F));
    put(0x80 | ((code >> 6) & 0x3F));
    put(0x80 | (code & 0x3F));
  }
}

int32_t lower_code(const StringNormalizerParams& p, int32_t code) {
  return static_cast<int32_t>(p.ctype->tolower(static_cast<wchar_t>(code)));
}

// Equal after lower-casing each code point (no allocation).
bool equal_ignoring_case(const StringNormalizerParams& p, std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    size_t length_a, length_b;
    const int32_t code_a = decode_utf8(a, i, length_a);
    const int32_t code_b = decode_utf8(b, j, length_b);
    if (code_a < 0 || code_b < 0) {
      if (code_a != code_b || a[i] != b[j]) return false;  // raw bytes compare as bytes
    } else if (lower_code(p, code_a) != lower_code(p, code_b)) {
      return false;
    }
    i += length_a;
    j += length_b;
  }
  return i == a.size() && j == b.size();
}

bool is_stopword(const StringNormalizerParams& p, const std::string& text) {
  for (const std::string& word : p.stopwords) {
    if (p.case_sensitive ? text == word : equal_ignoring_case(p, text, word)) return true;
  }
  return false;
}

void change_case(const StringNormalizerParams& p, const std::string& in, std::string& out) {
  if (p.change == CaseChange::kNone) {
    out = in;
    return;
  }
  out.clear();
  for (size_t pos = 0; pos < in.size();) {
    size_t length;
    const int32_t code = decode_utf8(in, pos, length);
    if (code < 0) {
      out.push_back(in[pos]);
    } else {
      const wchar_t wide = static_cast<wchar_t>(code);
      append_utf8(out, static_cast<int32_t>(p.change == CaseChange::kUpper ? p.ctype->toupper(wide)
                                                                          : p.ctype->tolower(wide)));
    }
    pos += length;
  }
}

int string_normalizer_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const StringNormalizerParams*>(args.params);
  const auto* x = static_cast<const std::string*>(args.inputs[0]);
  auto* y = static_cast<std::string*>(args.outputs[0]);
  if ((x == nullptr && p.input_count > 0) || y == nullptr) return kKernelMissingAddress;
  int64_t kept = 0;
  for (int64_t i = 0; i < p.input_count; ++i) {
    if (is_stopword(p, x[i])) continue;
    if (kept < p.output_count) change_case(p, x[i], y[kept]);
    ++kept;
  }
  if (kept == 0) {
    if (p.output_count != 1) return kRuntimeSizeMismatch;
    y[0].clear();
    return kKernelOk;
  }
  return kept == p.output_count ? kKernelOk : kRuntimeSizeMismatch;
}

// The locale `name` names, trying "<name>.UTF-8" first for a bare "en_US".
bool make_locale(const std::string& name, std::locale& out) {
  for (const std::string& candidate : {name + ".UTF-8", name}) {
    try {
      out = std::locale(candidate);
      return true;
    } catch (const std::runtime_error&) {
      // not installed under this name: try the next
    }
  }
  return false;
}

Result<PreparedKernel> prepare_string_normalizer(const KernelContext& context) {
  StringNormalizerParams p;
  GE_ASSIGN_OR_RETURN(std::string action, string_attribute(context, "case_change_action", "NONE"));
  if (action == "LOWER") {
    p.change = CaseChange::kLower;
  } else if (action == "UPPER") {
    p.change = CaseChange::kUpper;
  } else if (action != "NONE") {
    return invalid_attribute(context, "case_change_action", "is '" + action + "'; expected LOWER, UPPER or NONE");
  }
  GE_ASSIGN_OR_RETURN(int64_t sensitive, int_attribute(context, "is_case_sensitive", 0));
  p.case_sensitive = sensitive != 0;
  if (const Attribute* words = context.node.attribute("stopwords")) {
    if (!words->holds<std::vector<std::string>>()) {
      return invalid_attribute(context, "stopwords", "must be a list of strings");
    }
    p.stopwords = words->get<std::vector<std::string>>();
  }
  GE_ASSIGN_OR_RETURN(std::string locale_name, string_attribute(context, "locale", "en_US"));
  if (!make_locale(locale_name, p.locale) && !make_locale("C", p.locale)) {
    return unsupported_feature(context, "locale '" + locale_name + "' (neither it nor C.UTF-8 is installed)");
  }
  p.ctype = &std::use_facet<std::ctype<wchar_t>>(p.locale);

  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  if (!(dims.size() == 1 || (dims.size() == 2 && dims[0] == 1))) {
    return invalid_node(context, "input 0 must be [C] or [1, C], got " + shape_to_string(dims));
  }
  p.input_count = dims.back();
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, 0));
  if (out_dims.size() != dims.size() || (out_dims.size() == 2 && out_dims[0] != 1)) {
    return invalid_node(context, "output 0 must have the rank of input 0 (" + shape_to_string(dims) + "), got " +
                                     shape_to_string(out_dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kString, out_dims));
  p.output_count = out_dims.back();
  return make_kernel(context, &string_normalizer_kernel, std::move(p));
}

}  // namespace

void add_string_normalizer_kernels(std::vector<OpKernel>& table) {
  table.push_back({"StringNormalizer", {DataType::kString}, &prepare_string_normalizer});
}

}  // namespace ge::reference_kernels::special
