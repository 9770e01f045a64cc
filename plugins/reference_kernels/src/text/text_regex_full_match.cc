// RegexFullMatch (opset 20): whether each string of X matches `pattern` as a whole, in
// RE2 syntax (as the spec and ONNX Runtime: `\w` and `\b` are ASCII-only, unlike Python's
// re that onnx/reference uses). Strings are matched as UTF-8. The pattern compiles once,
// in prepare; an invalid one is an attribute error with RE2's message.

#include <memory>
#include <string>

#include <re2/re2.h>

#include "text/registration.h"

namespace ge::reference_kernels::special {
namespace {

struct RegexFullMatchParams {
  std::shared_ptr<const re2::RE2> regex;  // matching through a const RE2 is thread-safe
  int64_t count = 0;
};

int regex_full_match_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const RegexFullMatchParams*>(args.params);
  if (p.count == 0) return kKernelOk;
  const auto* x = static_cast<const std::string*>(args.inputs[0]);
  auto* y = static_cast<bool*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.count; ++i) y[i] = re2::RE2::FullMatch(x[i], *p.regex);
  return kKernelOk;
}

Result<PreparedKernel> prepare_regex_full_match(const KernelContext& context) {
  if (context.node.attribute("pattern") == nullptr) return invalid_attribute(context, "pattern", "is required");
  GE_ASSIGN_OR_RETURN(std::string pattern, string_attribute(context, "pattern", ""));
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto regex = std::make_shared<const re2::RE2>(pattern, options);
  if (!regex->ok()) {
    return invalid_attribute(context, "pattern", "'" + pattern + "' is not a valid RE2 pattern: " + regex->error());
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kBool, dims));
  RegexFullMatchParams p;
  p.regex = std::move(regex);
  p.count = product(dims);
  return make_kernel(context, &regex_full_match_kernel, std::move(p));
}

}  // namespace

void add_regex_full_match_kernels(std::vector<OpKernel>& table) {
  table.push_back({"RegexFullMatch", {DataType::kString}, &prepare_regex_full_match});
}

}  // namespace ge::reference_kernels::special
