#pragma once
/// Carries a GE Status through libonnx's inference function, which only understands
/// exceptions, so the op library can return it unchanged with context added.

#include <exception>
#include <utility>

#include "ge/status.h"

namespace ge::onnx_ops {

class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return status_.message().c_str(); }

 private:
  Status status_;
};

}  // namespace ge::onnx_ops
