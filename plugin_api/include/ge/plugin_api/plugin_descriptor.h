#pragma once
/// The contract between the plugin host and a plugin library: one exported C entry symbol
/// returning a descriptor whose first field is the ABI version. The host checks it before
/// touching anything else, then calls `register_components` with a Registrar. No
/// exception may cross the boundary: every call returns a Status. Plugin authors include
/// ge/plugin_api/plugin.h, which adds GE_DEFINE_PLUGIN.

#include <cstdint>
#include <memory>

#include "ge/plugin_api/backend.h"
#include "ge/plugin_api/kernel_library.h"
#include "ge/plugin_api/memory_assigner.h"
#include "ge/op_registry.h"
#include "ge/plugin_api/parser.h"
#include "ge/plugin_api/pass.h"
#include "ge/plugin_options.h"
#include "ge/status.h"

namespace ge {

/// Bumped on any incompatible change to the plugin API or the core types it exposes.
// 2: Device task tracing, Stream::run; 3: formats, intra-op threads; 4: core version and
// build fingerprint in the descriptor; 5: kernel libraries; 6: Device::queue_depth and
// Backend::prepare_super_kernel (new virtuals: the vtables changed); 7: atomic clean
// (PreparedKernel::zeroed, MemsetTask in the Task variant); 8: OpSchemaInfo declares
// in-place pairs and views (new members: its layout changed); 9: PassInfo has a phase and
// run_after / run_before lists instead of an order, PluginOptions holds string arrays; 10:
// OpSchemaInfo declares concatenations (concatenates_along: its layout changed); 11:
// OpSchemaInfo declares constants (is_constant); 12: TaskTraceRecord names the node a
// kernel task runs (a new member: its layout changed); 13: PreparedKernel::held_bytes (the
// bytes a kernel holds, e.g. prepacked weights, for the memory limit: its layout changed); 14:
// Backend::set_precision (a new virtual: the vtable changed); 15:
// Backend::has_native_arithmetic (a new virtual); 16: Parser::parse_file_with and
// parse_bytes_with (ParseOptions: input shapes; new virtuals).
inline constexpr uint32_t kPluginAbiVersion = 16;

/// Where a plugin puts its components. Each add_* fails on a duplicate component name or
/// on a kind the registry entry did not declare.
class Registrar {
 public:
  virtual ~Registrar() = default;
  /// The `[plugin.options]` table of this plugin's registry entry.
  virtual const PluginOptions& options() const = 0;
  virtual Status add_parser(std::shared_ptr<Parser> parser) = 0;
  virtual Status add_pass(PassInfo pass) = 0;
  virtual Status add_memory_assigner(std::shared_ptr<MemoryAssigner> assigner) = 0;
  virtual Status add_backend(std::shared_ptr<Backend> backend) = 0;
  virtual Status add_op_library(std::shared_ptr<const OpLibrary> library) = 0;
  /// Kernels for another plugin's backend (ge/plugin_api/kernel_library.h), e.g. a custom op's. Kind
  /// op_library: a custom op's plugin registers its schema and its kernels together.
  virtual Status add_kernel_library(std::shared_ptr<const KernelLibrary> library) = 0;
};

}  // namespace ge

extern "C" {
/// Layout-stable: `abi_version` stays the first field forever. The host checks, in order:
/// abi_version equal to its own; core_version of the same major.minor as its own
/// (GE_VERSION_STRING of the headers the plugin was built with); stdlib_abi equal to its
/// own (GE_STDLIB_ABI); `name` equal to the name of the registry entry that loads it.
/// `compiler` is for messages.
struct GePluginDescriptor {
  uint32_t abi_version;
  const char* name;
  const char* version;
  ge::Status (*register_components)(ge::Registrar& registrar);
  const char* core_version;
  const char* stdlib_abi;
  const char* compiler;
};
}

/// The one symbol a plugin exports.
#define GE_PLUGIN_ENTRY_SYMBOL "ge_plugin_entry"
