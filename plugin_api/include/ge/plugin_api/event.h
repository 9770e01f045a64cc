#pragma once
/// A cross-stream synchronisation point a backend's device creates.

#include "ge/status.h"

namespace ge {

class Event {
 public:
  virtual ~Event() = default;
  /// Blocks the host until the last recorded point has been reached.
  virtual Status synchronize() = 0;
};

}  // namespace ge
