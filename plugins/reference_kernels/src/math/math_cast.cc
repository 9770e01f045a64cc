// Cast and CastLike between every pair of bool, integer, float16, bfloat16, float,
// double and string dtypes, following numpy's astype: integers wrap, floating point to
// integer truncates toward zero (NaN gives 0, out-of-range values saturate), to float16
// rounds to nearest even. Two choices follow ONNX's own reference data (opsets <= 17):
//   - float -> bfloat16 keeps the upper 16 bits of the float32 (truncation);
//   - numbers -> string print like numpy's str(): the shortest text that reads back to
//     the same value ("0.039187793", "1e-05", "inf", "nan"; bool as "True"/"False").
// string -> number accepts what strtod/strtoll accept (with an optional leading '+',
// "inf"/"INF"/"nan"/"NaN"); a string that is not a number fails the launch with
// kKernelCastUnparsableString.
// The 4- and 8-bit types (opsets 19-23, narrow_element.h) follow ONNX's reference: to
// float8 rounds to nearest even with the `saturate` attribute (default 1), to float4e2m1
// always saturates, to int4/uint4 clips to the range and then rounds half to even (the
// same from integers: they clip); from float8/float4 decodes to float32 and casts on from
// there, from int4/uint4 casts the integer. Between them and string is not supported.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/narrow_element.h"
#include "math/math_cast.h"
#include "math/math_types.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

struct CastParams {
  int64_t elements = 0;
  NarrowCodec from, to;  // the narrow side(s) of a cast to or from a 4- or 8-bit type
};

// "1.5e-05" style text from the sign, the significant digits and the decimal exponent
// of the leading digit, as Python's repr and numpy's str() print: positional for
// exponents in [-4, 16), scientific otherwise.
std::string python_style(bool negative, std::string digits, int exponent) {
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string text = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      text += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else {
      const auto integer_digits = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= integer_digits) {
        text += digits + std::string(integer_digits - digits.size(), '0') + ".0";
      } else {
        text += digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
      }
    }
    return text;
  }
  text += digits.substr(0, 1);
  if (digits.size() > 1) text += "." + digits.substr(1);
  const int magnitude = exponent < 0 ? -exponent : exponent;
  text += exponent < 0 ? "e-" : "e+";
  if (magnitude < 10) text += "0";
  text += std::to_string(magnitude);
  return text;
}

// Splits to_chars' scientific text ("-1.2345e-05") and reformats it python-style.
std::string from_scientific(std::string_view scientific) {
  const bool negative = !scientific.empty() && scientific.front() == '-';
  if (negative) scientific.remove_prefix(1);
  const size_t e = scientific.find('e');
  std::string digits;
  for (char c : scientific.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  std::string_view exponent_text = scientific.substr(e + 1);
  if (!exponent_text.empty() && exponent_text.front() == '+') exponent_text.remove_prefix(1);
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
  return python_style(negative, digits, exponent);
}

template <typename F>
std::string special_text(F value) {
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

// The shortest round-trip text of a float or double.
template <typename F>
std::string shortest_text(F value) {
  if (!std::isfinite(value)) return special_text(value);
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  return from_scientific(std::string_view(buffer, static_cast<size_t>(result.ptr - buffer)));
}

// The shortest text that reads back to the same float16/bfloat16: the fewest significant
// digits whose correctly rounded value converts back to the same bits.
template <typename H>
std::string shortest_half_text(H value) {
  const float wide = load(value);
  if (!std::isfinite(wide)) return special_text(wide);
  char buffer[64];
  for (int precision = 0; precision < 9; ++precision) {
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), wide, std::chars_format::scientific, precision);
    double parsed = 0.0;
    std::from_chars(buffer, result.ptr, parsed);
    if (convert<H>(parsed).bits == value.bits) {
      return from_scientific(std::string_view(buffer, static_cast<size_t>(result.ptr - buffer)));
    }
  }
  return shortest_text(wide);
}

template <typename From>
std::string to_text(const From& value) {
  if constexpr (std::is_same_v<From, std::string>) {
    return value;
  } else if constexpr (std::is_same_v<From, bool>) {
    return value ? "True" : "False";
  } else if constexpr (std::is_integral_v<From>) {
    return std::to_string(value);
  } else if constexpr (is_half_v<From>) {
    return shortest_half_text(value);
  } else {
    return shortest_text(value);
  }
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Parses all of `text` (surrounding whitespace and one leading '+' allowed) as a number
// of type N; false when it is not one.
template <typename N>
bool parse_all(std::string_view text, N& out) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(begin, end, out);
  return result.ec == std::errc() && result.ptr == end;
}

template <typename To>
bool parse_text(const std::string& text, To& out) {
  std::string_view view(text);
  while (!view.empty() && std::isspace(static_cast<unsigned char>(view.front()))) view.remove_prefix(1);
  while (!view.empty() && std::isspace(static_cast<unsigned char>(view.back()))) view.remove_suffix(1);
  if (view.size() > 1 && view.front() == '+' && view[1] != '-' && view[1] != '+') view.remove_prefix(1);
  if constexpr (std::is_same_v<To, bool>) {
    if (equals_ignoring_case(view, "true") || equals_ignoring_case(view, "false")) {
      out = equals_ignoring_case(view, "true");
      return true;
    }
  }
  if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool>) {
    if (parse_all(view, out)) return true;
  }
  if constexpr (std::is_same_v<To, float>) {
    return parse_all(view, out);
  } else {
    // Other types round once from double (an integer written as "1.5" truncates).
    double number = 0.0;
    if (!parse_all(view, number)) return false;
    out = convert<To>(number);
    return true;
  }
}

// One element between two non-string types (bfloat16 from float truncates, see above).
template <typename To, typename From>
To cast_number(From value) {
  if constexpr (std::is_same_v<To, BFloat16>) {
    return BFloat16{bfloat16_truncate(convert<float>(value))};
  } else {
    return convert<To>(value);
  }
}

template <typename From, typename To>
int cast_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CastParams*>(args.params);
  const auto* x = static_cast<const From*>(args.inputs[0]);
  auto* y = static_cast<To*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.elements; ++i) {
    if constexpr (std::is_same_v<To, std::string>) {
      y[i] = to_text(x[i]);
    } else if constexpr (std::is_same_v<From, std::string>) {
      if (!parse_text(x[i], y[i])) return kKernelCastUnparsableString;
    } else {
      y[i] = cast_number<To>(x[i]);
    }
  }
  return kKernelOk;
}

// ---- the 4- and 8-bit types: one byte code per element ----

template <typename From>
int cast_to_narrow_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CastParams*>(args.params);
  const auto* x = static_cast<const From*>(args.inputs[0]);
  auto* y = static_cast<uint8_t*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.elements; ++i) y[i] = p.to.encode(convert<double>(x[i]));
  return kKernelOk;
}

template <typename To>
int cast_from_narrow_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CastParams*>(args.params);
  const auto* x = static_cast<const uint8_t*>(args.inputs[0]);
  auto* y = static_cast<To*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.elements; ++i) {
    const double value = p.from.decode(x[i]);
    if (p.from.is_float) {
      y[i] = cast_number<To>(static_cast<float>(value));  // exact: float8/float4 fit in float32
    } else if (p.from.is_signed) {
      y[i] = cast_number<To>(static_cast<int8_t>(value));
    } else {
      y[i] = cast_number<To>(static_cast<uint8_t>(value));
    }
  }
  return kKernelOk;
}

int cast_narrow_to_narrow_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CastParams*>(args.params);
  const auto* x = static_cast<const uint8_t*>(args.inputs[0]);
  auto* y = static_cast<uint8_t*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.elements; ++i) y[i] = p.to.encode(p.from.decode(x[i]));
  return kKernelOk;
}

using NumberTypes = Concat<NumericTypes, BoolTypes>;

// Every dtype Cast reads or writes.
std::vector<DataType> cast_types() {
  std::vector<DataType> types = data_types(AllTypes{});
  for (DataType narrow : narrow_types()) types.push_back(narrow);
  return types;
}

Result<PreparedKernel> prepare_narrow_cast(const KernelContext& context, DataType from, DataType to,
                                           int64_t elements) {
  if (from == DataType::kString || to == DataType::kString) {
    return unsupported_feature(context, "cast from " + std::string(data_type_name(from)) + " to " +
                                            std::string(data_type_name(to)) +
                                            " (string casts of the 4- and 8-bit types are not supported)");
  }
  GE_ASSIGN_OR_RETURN(int64_t saturate, int_attribute(context, "saturate", 1));
  CastParams params{elements, {}, {}};
  if (is_narrow_type(from)) params.from = NarrowCodec::of(from);
  if (is_narrow_type(to)) params.to = NarrowCodec::of(to, saturate != 0);
  KernelFunction function = nullptr;
  if (is_narrow_type(from) && is_narrow_type(to)) {
    function = &cast_narrow_to_narrow_kernel;
  } else if (is_narrow_type(to)) {
    function = select_kernel(from, NumberTypes{},
                             []<typename From>() -> KernelFunction { return &cast_to_narrow_kernel<From>; });
  } else {
    function =
        select_kernel(to, NumberTypes{}, []<typename To>() -> KernelFunction { return &cast_from_narrow_kernel<To>; });
  }
  if (function == nullptr) {
    return unsupported_feature(context, "cast from " + std::string(data_type_name(from)) + " to " +
                                            std::string(data_type_name(to)));
  }
  return make_kernel(context, function, params);
}

Result<PreparedKernel> prepare_cast_to(const KernelContext& context, DataType to) {
  const DataType from = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  if (is_narrow_type(from) || is_narrow_type(to)) {
    GE_RETURN_IF_ERROR(check_output(context, 0, to, dims));
    return prepare_narrow_cast(context, from, to, product(dims));
  }
  if (!contains(AllTypes{}, to)) {
    return unsupported_feature(context, "cast to " + std::string(data_type_name(to)) +
                                            " (supported: " + data_type_list(cast_types()) + ")");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, to, dims));
  KernelFunction function = select_kernel(from, AllTypes{}, [&]<typename From>() -> KernelFunction {
    return select_kernel(to, AllTypes{}, []<typename To>() -> KernelFunction { return &cast_kernel<From, To>; });
  });
  if (function == nullptr) return unsupported_dtype(context, from, cast_types());
  return make_kernel(context, function, CastParams{product(dims), {}, {}});
}

Result<PreparedKernel> prepare_cast(const KernelContext& context) {
  if (!context.node.has_attribute("to")) return invalid_attribute(context, "to", "is required");
  GE_ASSIGN_OR_RETURN(int64_t to, int_attribute(context, "to", 0));
  if (to < 0 || to > std::numeric_limits<int32_t>::max() || !is_valid_data_type(static_cast<int32_t>(to)) || to == 0) {
    return invalid_attribute(context, "to", "is " + std::to_string(to) + ", not a known dtype");
  }
  return prepare_cast_to(context, static_cast<DataType>(to));
}

Result<PreparedKernel> prepare_cast_like(const KernelContext& context) {
  if (!has_input(context, 1)) return invalid_node(context, "input 1 (target_type) is missing");
  return prepare_cast_to(context, input_dtype(context, 1));
}

}  // namespace

void add_cast_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Cast", cast_types(), &prepare_cast});
  table.push_back({"CastLike", cast_types(), &prepare_cast_like});
}

}  // namespace ge::reference_kernels::math
