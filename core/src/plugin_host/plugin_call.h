#pragma once
// Calls into plugins (a pass's run, a parser, an op library's inference, a backend's
// prepare): an exception escaping the plugin becomes an error naming the plugin and the
// call, never a crash of the host. std::bad_alloc stays an allocation failure the caller
// reports as such.

#include <exception>
#include <new>
#include <string>
#include <type_traits>

#include "ge/status.h"

namespace ge::detail {

/// Runs `call` (returning Status or Result<T>); `what` names the plugin and the call,
/// e.g. "pass 'fuse_activation' (run)": a string, or a callable making it (built only
/// when the call throws: per-node calls on a hot path, a plan's inference and kernels).
template <typename What, typename Call>
auto guard_plugin_call(const What& what, Call&& call) -> decltype(call()) {
  auto named = [&what]() -> std::string {
    if constexpr (std::is_invocable_r_v<std::string, const What&>) {
      return what();
    } else {
      return std::string(what);
    }
  };
  try {
    return call();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    return plugin_error(named() + " threw an exception: " + error.what());
  } catch (...) {
    return plugin_error(named() + " threw a non-standard exception");
  }
}

}  // namespace ge::detail
