// StringSplit (opset 20): splits each string of X on `delimiter` into the last axis of Y
// (padded with "" to the largest count) and gives the counts in Z, as Python's
// str.split(delimiter or None, maxsplit) in onnx/reference's op_string_split.py:
// - a delimiter splits on each (non-overlapping, left to right) occurrence; "" gives one
//   empty substring;
// - no delimiter (or ""): runs of whitespace (Python's str.isspace, Unicode included)
//   separate, leading whitespace is dropped, and a string of only whitespace gives none;
// - after `maxsplit` splits the rest is one substring; without a delimiter its trailing
//   whitespace is dropped, as the spec says ("leading or trailing whitespace is removed")
//   and ONNX Runtime does, where Python's split keeps it.
//
// The largest count depends on the data: Y's last extent comes from run-time shape
// inference, and a launch whose largest count differs from it returns
// kKernelRuntimeSizeMismatch.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "text/registration.h"

namespace ge::reference_kernels::special {
namespace {

struct StringSplitParams {
  std::string delimiter;  // "": whitespace
  int64_t maxsplit = -1;  // -1: no limit
  int64_t count = 0;      // elements of X
  int64_t width = 0;      // Y's last extent
};

bool is_python_space(uint32_t code) {
  return (code >= 0x09 && code <= 0x0D) || (code >= 0x1C && code <= 0x20) || code == 0x85 || code == 0xA0 ||
         code == 0x1680 || (code >= 0x2000 && code <= 0x200A) || code == 0x2028 || code == 0x2029 ||
         code == 0x202F || code == 0x205F || code == 0x3000;
}

// The byte length of the whitespace code point at text[pos] (UTF-8), or 0.
size_t space_length(std::string_view text, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return is_python_space(lead) ? 1 : 0;
  const size_t count = (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : 0;  // no 4-byte space exists
  if (count == 0 || pos + count > text.size()) return 0;
  uint32_t code = lead & (count == 2 ? 0x1F : 0x0F);
  for (size_t i = 1; i < count; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(pos + i) & 0x3F);
  }
  return is_python_space(code) ? count : 0;
}

void split(std::string_view text, const StringSplitParams& p, std::vector<std::string_view>& out) {
  out.clear();
  if (!p.delimiter.empty()) {
    size_t begin = 0;
    for (size_t at = text.find(p.delimiter); at != std::string_view::npos;
         at = text.find(p.delimiter, begin)) {
      if (p.maxsplit >= 0 && static_cast<int64_t>(out.size()) == p.maxsplit) break;
      out.push_back(text.substr(begin, at - begin));
      begin = at + p.delimiter.size();
    }
    out.push_back(text.substr(begin));
    return;
  }
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && space_length(text, pos) > 0) pos += space_length(text, pos);
    if (pos == text.size()) break;
    if (p.maxsplit >= 0 && static_cast<int64_t>(out.size()) == p.maxsplit) {
      // The rest, without its trailing whitespace (the spec; Python's split keeps it).
      size_t end = pos, at = pos;
      while (at < text.size()) {
        const size_t space = space_length(text, at);
        at += space > 0 ? space : 1;
        if (space == 0) end = at;
      }
      out.push_back(text.substr(pos, end - pos));
      break;
    }
    const size_t begin = pos;
    while (pos < text.size() && space_length(text, pos) == 0) ++pos;
    out.push_back(text.substr(begin, pos - begin));
  }
}

int string_split_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const StringSplitParams*>(args.params);
  if (p.count == 0) return kKernelOk;
  const auto* x = static_cast<const std::string*>(args.inputs[0]);
  auto* y = static_cast<std::string*>(args.outputs[0]);
  auto* z = static_cast<int64_t*>(args.outputs[1]);
  if (x == nullptr || (y == nullptr && p.width > 0)) return kKernelMissingAddress;
  std::vector<std::vector<std::string_view>> parts(static_cast<size_t>(p.count));
  int64_t widest = 0;
  for (int64_t i = 0; i < p.count; ++i) {
    split(x[i], p, parts[static_cast<size_t>(i)]);
    widest = std::max(widest, static_cast<int64_t>(parts[static_cast<size_t>(i)].size()));
  }
  if (widest != p.width) {
    return kernel_error(kKernelRuntimeSizeMismatch, "the most substrings of one element is " + std::to_string(widest) +
                                                        " but output 0's last extent is " + std::to_string(p.width));
  }
  for (int64_t i = 0; i < p.count; ++i) {
    const auto& pieces = parts[static_cast<size_t>(i)];
    std::string* row = y + i * p.width;
    for (int64_t j = 0; j < p.width; ++j) {
      row[j] = j < static_cast<int64_t>(pieces.size()) ? std::string(pieces[static_cast<size_t>(j)]) : std::string();
    }
    if (z != nullptr) z[i] = static_cast<int64_t>(pieces.size());
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_string_split(const KernelContext& context) {
  StringSplitParams p;
  GE_ASSIGN_OR_RETURN(p.delimiter, string_attribute(context, "delimiter", ""));
  if (context.node.attribute("maxsplit") != nullptr) {
    GE_ASSIGN_OR_RETURN(p.maxsplit, int_attribute(context, "maxsplit", -1));
    if (p.maxsplit < 0) {
      return invalid_attribute(context, "maxsplit", "is " + std::to_string(p.maxsplit) + "; it must not be negative");
    }
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  std::vector<int64_t> expected = x_dims;
  expected.push_back(y_dims.empty() ? 0 : y_dims.back());
  if (y_dims != expected) {
    return invalid_node(context, "output 0 " + shape_to_string(y_dims) + " must be input 0's shape " +
                                     shape_to_string(x_dims) + " plus one axis");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kString, y_dims));
  if (has_output(context, 1)) GE_RETURN_IF_ERROR(check_output(context, 1, DataType::kInt64, x_dims));
  p.count = product(x_dims);
  p.width = y_dims.back();
  return make_kernel(context, &string_split_kernel, std::move(p));
}

}  // namespace

void add_string_split_kernels(std::vector<OpKernel>& table) {
  table.push_back({"StringSplit", {DataType::kString}, &prepare_string_split});
}

}  // namespace ge::reference_kernels::special
