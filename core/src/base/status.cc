// Error values (ge/status.h).
#include "ge/status.h"

namespace ge {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kParseError: return "parse error";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kPluginError: return "plugin error";
    case StatusCode::kInternal: return "internal error";
    case StatusCode::kCancelled: return "cancelled";
  }
  return "unknown";
}

Status Status::with_context(const std::string& context) const {
  if (is_ok()) return *this;
  return Status(code_, context + ": " + message_);
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(status_code_name(code_)) + ": " + message_;
}

Status invalid_argument(std::string message) { return {StatusCode::kInvalidArgument, std::move(message)}; }
Status not_found(std::string message) { return {StatusCode::kNotFound, std::move(message)}; }
Status parse_error(std::string message) { return {StatusCode::kParseError, std::move(message)}; }
Status unsupported(std::string message) { return {StatusCode::kUnsupported, std::move(message)}; }
Status plugin_error(std::string message) { return {StatusCode::kPluginError, std::move(message)}; }
Status internal_error(std::string message) { return {StatusCode::kInternal, std::move(message)}; }
Status cancelled(std::string message) { return {StatusCode::kCancelled, std::move(message)}; }

}  // namespace ge
