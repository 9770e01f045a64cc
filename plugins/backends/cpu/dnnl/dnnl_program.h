#pragma once
// A prepared oneDNN kernel: a short list of primitives (reorders around a convolution,
// the convolution itself) whose arguments are node inputs, node outputs, slices of the
// launch workspace or buffers owned by the kernel (prepacked weights). A launch binds
// the addresses into pre-built memory objects and executes: no allocation, no map.

#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/kernel.h"
#include "ge/tensor.h"

namespace ge::cpu_dnnl {

/// Where one primitive argument's address comes from at launch.
struct ArgSource {
  enum Kind { kInput, kOutput, kWorkspace, kOwned } kind = kInput;
  int index = 0;          ///< input/output index
  size_t offset = 0;      ///< byte offset from the base (the workspace, the input, ...)
  void* owned = nullptr;  ///< kOwned: the kernel's own buffer
};

struct ProgramArg {
  int kind = 0;  ///< DNNL_ARG_*
  dnnl::memory::desc desc;
  ArgSource source;
};

/// A step the host computes itself between primitives (e.g. a depth-to-space scatter):
/// it gets the launch's arguments and its own parameters.
using HostStep = int (*)(const KernelArgs& args, const void* params);

struct ProgramStep {
  dnnl::primitive primitive;
  std::vector<ProgramArg> args;
  HostStep host = nullptr;  ///< set instead of `primitive` for a host step
  std::shared_ptr<const void> host_params;
};

/// The engine every fast path uses (one CPU engine per process).
const dnnl::engine& cpu_engine();

/// The address `source` names in a launch's arguments (null where the launch has none).
void* resolve(const KernelArgs& args, const ArgSource& source);

/// Builds a program step by step, then turns it into a PreparedKernel.
class ProgramBuilder {
 public:
  /// Reserves `bytes` of launch workspace (64-byte aligned) and returns its offset.
  size_t reserve_workspace(size_t bytes);
  /// Keeps `buffer` alive as long as the kernel; returns its address.
  void* own(std::shared_ptr<void> buffer, void* address);
  /// Notes `bytes` the kernel holds (a prepacked copy): PreparedKernel::held_bytes.
  void count_held(size_t bytes) { held_bytes_ += bytes; }
  /// Adds a step. Primitives whose attributes use a user scratchpad get it from the
  /// workspace here.
  void add(dnnl::primitive primitive, std::vector<ProgramArg> args, const dnnl::memory::desc& scratchpad);
  /// Adds a host step.
  void add_host(HostStep step, std::shared_ptr<const void> params);
  /// Adds a reorder of `from` (read at `source`) into `to` (written at `target`). Either
  /// may be float16 (which no oneDNN 2.6 CPU kernel but its generic reorder reads): the
  /// conversion to or from float32 is then a host step over the bytes as stored (F16C or
  /// AVX-512, split over the kernel's threads from 8192 elements), with a float32 reorder
  /// through the workspace where the layouts differ too.
  void add_reorder(const dnnl::memory::desc& from, ArgSource source, const dnnl::memory::desc& to, ArgSource target);
  /// Adds a reorder of `from` (read at `source`) into a fresh workspace slice laid out as
  /// `to`; returns the slice.
  ArgSource reorder_to_workspace(const dnnl::memory::desc& from, ArgSource source, const dnnl::memory::desc& to);
  /// Where a primitive reading input `index` stored as `stored` finds it laid out as
  /// `wanted` (another layout or element type): the input itself when they agree, else a
  /// workspace slice it is reordered into.
  ArgSource input(int index, const dnnl::memory::desc& stored, const dnnl::memory::desc& wanted);
  /// Adds a reorder of `from` (read at `source`) into output `output` stored as `to`.
  void reorder_to_output(const dnnl::memory::desc& from, ArgSource source, const dnnl::memory::desc& to,
                         int output = 0);
  /// Where a primitive whose output layout is `internal` writes output 0 stored as
  /// `stored`: the output itself when they agree, else a workspace slice that
  /// finish_output() reorders.
  ArgSource output_or_workspace(const dnnl::memory::desc& internal, const dnnl::memory::desc& stored);
  void finish_output(const dnnl::memory::desc& internal, ArgSource written, const dnnl::memory::desc& stored);
  /// The finished kernel, `name` e.g. "cpu.Conv.dnnl:jit:avx512_core".
  PreparedKernel build(std::string name, int threads) &&;

 private:
  std::vector<ProgramStep> steps_;
  std::vector<std::shared_ptr<void>> owned_;
  size_t workspace_ = 0;
  size_t held_bytes_ = 0;
};

/// Reorders constant `data` laid out as `from` into a kernel-owned buffer laid out as
/// `to` (prepacking weights once at prepare time); returns its address. Kernels packing
/// the same tensor the same way share one buffer.
void* prepack(ProgramBuilder& builder, const Tensor& data, const dnnl::memory::desc& from,
              const dnnl::memory::desc& to);

/// Whether `data` laid out as `from` is already held packed as `to` by some kernel (or
/// needs no packing): what prepack would then share instead of reordering.
bool prepacked(const Tensor& data, const dnnl::memory::desc& from, const dnnl::memory::desc& to);

/// Allocates `bytes` aligned for oneDNN (64 bytes), owned by a shared_ptr.
std::shared_ptr<void> aligned_buffer(size_t bytes);

}  // namespace ge::cpu_dnnl
