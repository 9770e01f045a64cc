#pragma once
/// Error values used across every GE API and plugin boundary: no exception crosses one.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ge {

/// What kind of failure a Status carries. User-facing tools map kInternal to exit code 2
/// and every other error to exit code 1.
enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  ///< bad user input: wrong shape, unknown name, bad option
  kNotFound,         ///< a file, plugin, component or symbol that does not exist
  kParseError,       ///< malformed model, TOML or text IR
  kUnsupported,      ///< a valid request this build cannot serve (unknown op, dtype)
  kPluginError,      ///< a plugin failed to load or register
  kInternal,         ///< a bug in GE or a plugin
  kCancelled,        ///< the caller stopped the operation (ge/cancellation.h)
};

const char* status_code_name(StatusCode code);

/// The outcome of an operation: ok, or a code with a message that says what failed, on
/// what input, and what to do.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  /// Returns this status with `context + ": "` prepended to the message (ok stays ok).
  Status with_context(const std::string& context) const;
  /// "code: message" for logs.
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

Status invalid_argument(std::string message);
Status not_found(std::string message);
Status parse_error(std::string message);
Status unsupported(std::string message);
Status plugin_error(std::string message);
Status internal_error(std::string message);
Status cancelled(std::string message);

/// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(data_).is_ok() && "Result built from an ok Status");
  }

  bool is_ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return is_ok(); }

  /// The error; ok() when a value is present.
  Status status() const { return is_ok() ? Status::ok() : std::get<Status>(data_); }

  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace ge

#define GE_CONCAT_INNER(a, b) a##b
#define GE_CONCAT(a, b) GE_CONCAT_INNER(a, b)

/// Returns the Status of `expr` from the enclosing function when it is an error.
#define GE_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::ge::Status ge_status_tmp_ = (expr);        \
    if (!ge_status_tmp_.is_ok()) return ge_status_tmp_; \
  } while (0)

#define GE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.is_ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

/// `GE_ASSIGN_OR_RETURN(auto x, make_x());` unwraps a Result or returns its error.
#define GE_ASSIGN_OR_RETURN(lhs, expr) \
  GE_ASSIGN_OR_RETURN_IMPL(GE_CONCAT(ge_result_tmp_, __LINE__), lhs, expr)
