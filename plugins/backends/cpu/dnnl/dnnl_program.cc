#include "dnnl_program.h"

#include "dnnl_openmp.h"
#include "dnnl_util.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>

#include "ge/alignment.h"
#include "ge/minifloat.h"
#include "ge/reference_kernels/kernel_library.h"
#include "ge/reference_kernels/thread_budget.h"

namespace ge::cpu_dnnl {
namespace {

constexpr size_t kAlignment = 64;
// Launches of one kernel that may run at once without building memory objects (one
// session run per thread shares the prepared kernel); more fall back to temporaries.
constexpr size_t kSlots = 4;

// The memory objects and argument arrays of one launch in flight.
struct Slot {
  std::atomic_flag busy = ATOMIC_FLAG_INIT;
  std::vector<std::vector<dnnl::memory>> memories;  // per step, per arg
  std::vector<std::vector<dnnl_exec_arg_t>> args;   // per step, per arg
  dnnl::stream stream;
};

struct Program {
  std::vector<ProgramStep> steps;
  std::vector<std::shared_ptr<void>> owned;
  int threads = 1;
  mutable std::array<Slot, kSlots> slots;
};

void build_slot(const Program& program, Slot& slot) {
  slot.stream = dnnl::stream(cpu_engine());
  slot.memories.resize(program.steps.size());
  slot.args.resize(program.steps.size());
  for (size_t s = 0; s < program.steps.size(); ++s) {
    for (const ProgramArg& arg : program.steps[s].args) {
      slot.memories[s].emplace_back(arg.desc, cpu_engine(), static_cast<void*>(nullptr));
      slot.args[s].push_back({arg.kind, slot.memories[s].back().get()});
    }
  }
}

}  // namespace

void* resolve(const KernelArgs& args, const ArgSource& source) {
  void* base = nullptr;
  switch (source.kind) {
    case ArgSource::kInput:
      base = const_cast<void*>(args.inputs[source.index]);
      break;
    case ArgSource::kOutput:
      base = args.outputs[source.index];
      break;
    case ArgSource::kWorkspace:
      base = args.workspace;
      break;
    case ArgSource::kOwned:
      base = source.owned;
      break;
  }
  return base == nullptr ? nullptr : static_cast<char*>(base) + source.offset;
}

namespace {

struct HalfConversion {
  ArgSource from, to;
  size_t count = 0;   // elements
  bool widen = true;  // half -> float32 (else float32 -> half)
  bool bfloat = false;  // bfloat16 (else float16)
};

void bfloat16_span_to_float(const uint16_t* in, float* out, size_t count) {
  for (size_t i = 0; i < count; ++i) out[i] = ge::bfloat16_to_float(in[i]);
}
void bfloat16_span_from_float(const float* in, uint16_t* out, size_t count) {
  for (size_t i = 0; i < count; ++i) out[i] = ge::bfloat16_from_float(in[i]);
}

// A conversion of at least this many elements splits over the launch's threads: below
// it (16 KiB of float16) a fork/join (about a microsecond) costs more than it saves.
constexpr size_t kParallelConversion = 8192;

// Elements [begin, end) of the conversion, as stored, so any layout (core's span
// conversions: F16C or AVX-512).
void convert_range(const HalfConversion& p, void* from, void* to, size_t begin, size_t end) {
  const size_t count = end - begin;
  if (p.bfloat) {
    if (p.widen) {
      bfloat16_span_to_float(static_cast<const uint16_t*>(from) + begin, static_cast<float*>(to) + begin, count);
    } else {
      bfloat16_span_from_float(static_cast<const float*>(from) + begin, static_cast<uint16_t*>(to) + begin, count);
    }
    return;
  }
  if (p.widen) {
    ge::float16_to_float(std::span<const uint16_t>(static_cast<const uint16_t*>(from) + begin, count),
                         std::span<float>(static_cast<float*>(to) + begin, count));
  } else {
    ge::float16_from_float(std::span<const float>(static_cast<const float*>(from) + begin, count),
                           std::span<uint16_t>(static_cast<uint16_t*>(to) + begin, count));
  }
}

int convert_half(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const HalfConversion*>(params);
  void* from = resolve(args, p.from);
  void* to = resolve(args, p.to);
  if (from == nullptr || to == nullptr) return reference_kernels::kKernelMissingAddress;
  // Split over the launch's OpenMP team in whole 64-byte lines of the float side, as the
  // oneDNN primitives around this step use it.
  if (p.count < kParallelConversion) {
    convert_range(p, from, to, 0, p.count);
  } else {
    parallel_chunks(static_cast<int64_t>(p.count), 16, [&](int64_t begin, int64_t end) {
      convert_range(p, from, to, static_cast<size_t>(begin), static_cast<size_t>(end));
    });
  }
  return reference_kernels::kKernelOk;
}

// Half precision the host converts (float16; bfloat16 without bf16 arithmetic).
bool is_f16(const dnnl::memory::desc& desc) { return converted_half(desc.data_type()); }

// The reorder of one image between plain nchw and channel blocks (nChw16c, nChw8c) whose
// channels do not fill the last block: oneDNN runs its generic kernel for the padded
// layout ("jit:uni"), for [1,72,160,160] 601 us into blocks on one thread and 1130 us on
// two. As two reorders, the whole blocks (its blocked kernel) and the partial last one at
// their byte offsets (the same on both sides: C_whole * H * W floats), 204 / 272 us; back
// to plain 562 / 371 us instead of 594 / 550. oneDNN zeroes the last block's padding as
// for any padded output. Returns the two pairs of descs, or nothing when not that case.
struct PartialBlockSplit {
  dnnl::memory::desc whole_from, whole_to, last_from, last_to;
  size_t last_offset = 0;  // bytes
};

std::optional<PartialBlockSplit> split_partial_block(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  using Tag = dnnl::memory::format_tag;
  const dnnl::memory::dims dims = from.dims();
  if (dims.size() != 4 || dims[0] != 1 || to.dims() != dims || from.data_type() != dnnl::memory::data_type::f32 ||
      to.data_type() != dnnl::memory::data_type::f32) {
    return std::nullopt;
  }
  auto as = [&](const dnnl::memory::dims& d, Tag tag) {
    return dnnl::memory::desc(d, dnnl::memory::data_type::f32, tag);
  };
  for (const auto& [block, tag] :
       {std::pair<int64_t, Tag>{16, Tag::nChw16c}, std::pair<int64_t, Tag>{8, Tag::nChw8c}}) {
    const int64_t channels = dims[1], whole = channels / block * block;
    if (whole == 0 || whole == channels) continue;
    const bool to_blocks = from == as(dims, Tag::nchw) && to == as(dims, tag);
    const bool to_plain = from == as(dims, tag) && to == as(dims, Tag::nchw);
    if (!to_blocks && !to_plain) continue;
    const dnnl::memory::dims whole_dims{1, whole, dims[2], dims[3]}, last_dims{1, channels - whole, dims[2], dims[3]};
    const Tag whole_from = to_blocks ? Tag::nchw : tag, whole_to = to_blocks ? tag : Tag::nchw;
    return PartialBlockSplit{as(whole_dims, whole_from), as(whole_dims, whole_to), as(last_dims, whole_from),
                             as(last_dims, whole_to), static_cast<size_t>(whole * dims[2] * dims[3]) * sizeof(float)};
  }
  return std::nullopt;
}

ArgSource shifted(ArgSource source, size_t bytes) {
  source.offset += bytes;
  return source;
}

int run(const Program& program, Slot& slot, const KernelArgs& args) {
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const ProgramStep& step = program.steps[s];
    if (step.host != nullptr) {
      if (const int code = step.host(args, step.host_params.get())) return code;
      continue;
    }
    for (size_t a = 0; a < step.args.size(); ++a) {
      void* address = resolve(args, step.args[a].source);
      if (address == nullptr) return reference_kernels::kKernelMissingAddress;
      if (dnnl_memory_set_data_handle(slot.args[s][a].memory, address) != dnnl_success)
        return reference_kernels::kKernelLibraryFailure;
    }
    if (dnnl_primitive_execute(step.primitive.get(), slot.stream.get(), static_cast<int>(slot.args[s].size()),
                               slot.args[s].data()) != dnnl_success) {
      return reference_kernels::kKernelLibraryFailure;
    }
  }
  return reference_kernels::kKernelOk;
}

int launch(const KernelArgs& args) {
  const auto& program = *static_cast<const Program*>(args.params);
  // The thread policy (thread_budget.h). OpenMP's count is per calling thread: set it
  // only where it differs (a thread-local read otherwise).
  const reference_kernels::FastKernelLaunch in_flight(program.threads);
  const int threads = in_flight.threads();
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
  for (Slot& slot : program.slots) {
    if (slot.busy.test_and_set(std::memory_order_acquire)) continue;
    const int code = run(program, slot, args);
    slot.busy.clear(std::memory_order_release);
    return code;
  }
  // More launches in flight than slots: build temporaries (allocates; rare).
  try {
    Slot slot;
    build_slot(program, slot);
    return run(program, slot, args);
  } catch (...) {
    return reference_kernels::kKernelLibraryFailure;
  }
}

}  // namespace

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

std::shared_ptr<void> aligned_buffer(size_t bytes) {
  void* data = std::aligned_alloc(kAlignment, align_up(bytes == 0 ? 1 : bytes, kAlignment));
  if (data == nullptr) throw std::bad_alloc();
  return std::shared_ptr<void>(data, [](void* p) { std::free(p); });
}

size_t ProgramBuilder::reserve_workspace(size_t bytes) {
  const size_t offset = workspace_;
  workspace_ += align_up(bytes, kAlignment);
  return offset;
}

void* ProgramBuilder::own(std::shared_ptr<void> buffer, void* address) {
  owned_.push_back(std::move(buffer));
  return address;
}

void ProgramBuilder::add(dnnl::primitive primitive, std::vector<ProgramArg> args,
                         const dnnl::memory::desc& scratchpad) {
  if (scratchpad.get_size() > 0) {
    ArgSource source{ArgSource::kWorkspace, 0, reserve_workspace(scratchpad.get_size()), nullptr};
    args.push_back({DNNL_ARG_SCRATCHPAD, scratchpad, source});
  }
  steps_.push_back({std::move(primitive), std::move(args), nullptr, nullptr});
}

void ProgramBuilder::add_host(HostStep step, std::shared_ptr<const void> params) {
  ProgramStep host_step;
  host_step.host = step;
  host_step.host_params = std::move(params);
  steps_.push_back(std::move(host_step));
}

void ProgramBuilder::add_reorder(const dnnl::memory::desc& from, ArgSource source, const dnnl::memory::desc& to,
                                 ArgSource target) {
  using dt = dnnl::memory::data_type;
  auto retyped = [](const dnnl::memory::desc& desc, dt type) {
    dnnl_memory_desc_t data = desc.data;
    data.data_type = static_cast<dnnl_data_type_t>(type);
    return dnnl::memory::desc(data);
  };
  auto convert = [&](ArgSource f, ArgSource t, size_t count, bool widen) {
    auto params = std::make_shared<HalfConversion>();
    const dt half = widen ? from.data_type() : to.data_type();
    *params = HalfConversion{f, t, count, widen, half == dt::bf16};
    add_host(&convert_half, std::move(params));
  };
  if (is_f16(from)) {
    const dnnl::memory::desc wide = retyped(from, dt::f32);
    if (wide == to) {
      convert(source, target, from.get_size() / 2, true);
      return;
    }
    const ArgSource slice{ArgSource::kWorkspace, 0, reserve_workspace(wide.get_size()), nullptr};
    convert(source, slice, from.get_size() / 2, true);
    add_reorder(wide, slice, to, target);
    return;
  }
  if (is_f16(to)) {
    const dnnl::memory::desc wide = retyped(to, dt::f32);
    if (wide != from) {
      const ArgSource slice{ArgSource::kWorkspace, 0, reserve_workspace(wide.get_size()), nullptr};
      add_reorder(from, source, wide, slice);
      source = slice;
    }
    convert(source, target, to.get_size() / 2, false);
    return;
  }
  auto one = [&](const dnnl::memory::desc& f, ArgSource s, const dnnl::memory::desc& t, ArgSource d) {
    dnnl::reorder::primitive_desc pd(cpu_engine(), f, cpu_engine(), t);
    add(dnnl::reorder(pd), {{DNNL_ARG_FROM, f, s}, {DNNL_ARG_TO, t, d}}, dnnl::memory::desc());
  };
  if (std::optional<PartialBlockSplit> split = split_partial_block(from, to)) {
    one(split->whole_from, source, split->whole_to, target);
    one(split->last_from, shifted(source, split->last_offset), split->last_to, shifted(target, split->last_offset));
    return;
  }
  one(from, source, to, target);
}

ArgSource ProgramBuilder::input(int index, const dnnl::memory::desc& stored, const dnnl::memory::desc& wanted) {
  const ArgSource source{ArgSource::kInput, index, 0, nullptr};
  if (stored == wanted) return source;
  return reorder_to_workspace(stored, source, wanted);
}

ArgSource ProgramBuilder::reorder_to_workspace(const dnnl::memory::desc& from, ArgSource source,
                                               const dnnl::memory::desc& to) {
  ArgSource target{ArgSource::kWorkspace, 0, reserve_workspace(to.get_size()), nullptr};
  add_reorder(from, source, to, target);
  return target;
}

void ProgramBuilder::reorder_to_output(const dnnl::memory::desc& from, ArgSource source, const dnnl::memory::desc& to,
                                       int output) {
  add_reorder(from, source, to, {ArgSource::kOutput, output, 0, nullptr});
}

ArgSource ProgramBuilder::output_or_workspace(const dnnl::memory::desc& internal, const dnnl::memory::desc& stored) {
  if (internal == stored) return {ArgSource::kOutput, 0, 0, nullptr};
  return {ArgSource::kWorkspace, 0, reserve_workspace(internal.get_size()), nullptr};
}

void ProgramBuilder::finish_output(const dnnl::memory::desc& internal, ArgSource written,
                                   const dnnl::memory::desc& stored) {
  if (written.kind != ArgSource::kOutput) reorder_to_output(internal, written, stored);
}

PreparedKernel ProgramBuilder::build(std::string name, int threads) && {
  auto program = std::make_shared<Program>();
  program->steps = std::move(steps_);
  program->owned = std::move(owned_);
  program->threads = threads < 1 ? 1 : threads;
  for (Slot& slot : program->slots) build_slot(*program, slot);
  PreparedKernel kernel;
  kernel.function = &launch;
  kernel.params = std::move(program);
  kernel.workspace_bytes = workspace_;
  kernel.held_bytes = held_bytes_;
  kernel.name = std::move(name);
  return kernel;
}

namespace {

// True when `address` lies in a mapping of a file (/proc/self/maps: a non-zero inode).
bool in_file_mapping(uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device;
    unsigned long long inode = 0;
    if (!(fields >> range >> perms >> offset >> device >> inode)) continue;
    const size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    const uintptr_t start = std::stoull(range.substr(0, dash), nullptr, 16);
    const uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (address >= start && address < end) return inode != 0;
  }
  return false;
}

// Once a weight is repacked, kernels read the packed copy; when the source lies in a
// memory-mapped file (external data, a .gem), its pages need not stay resident, so that a
// model's weights are resident once and loading peaks at the packed weights plus the
// largest source, not twice the weights. MADV_PAGEOUT keeps the data (the pages are
// re-read from the file on a later access). Anonymous memory is left alone: paging it out
// would only write it to swap. Only whole pages inside the tensor are advised, and only
// for sources of 1 MiB or more.
void page_out(const void* data, size_t bytes) {
#ifdef MADV_PAGEOUT
  if (bytes < (size_t{1} << 20)) return;
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = (begin + bytes) / page * page;
  if (last <= first || !in_file_mapping(first)) return;
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_PAGEOUT);  // advice only
#else
  (void)data;
  (void)bytes;
#endif
}

/// Prepacked constants shared by every kernel that packs the same tensor the same way: a
/// graph's shape specialisations (and sessions of one model) prepare the same weights
/// again. Keyed by the source's address; an entry holds the source tensor, so its bytes
/// cannot be freed and the address reused while the entry exists, and the entry goes
/// when the last kernel using the packed copy does.
class PrepackCache {
 public:
  bool holds(const Tensor& source, const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
    std::lock_guard<std::mutex> lock(mutex_);
    return find_locked(source.raw_data(), from, to) != nullptr;
  }

  std::shared_ptr<void> get_or_pack(const Tensor& source, const dnnl::memory::desc& from,
                                    const dnnl::memory::desc& to) {
    std::lock_guard<std::mutex> lock(mutex_);
    const void* key = source.raw_data();
    if (std::shared_ptr<void> packed = find_locked(key, from, to)) return packed;
    std::shared_ptr<void> buffer = aligned_buffer(to.get_size());
    // float16 widens to float32 first: oneDNN 2.6 reorders float16 only with its generic
    // kernel, and not at all into some weight formats (Winograd's).
    dnnl::memory::desc source_desc = from;
    const void* source_data = key;
    std::shared_ptr<void> widened;
    if (converted_half(from.data_type()) && to.data_type() != from.data_type()) {
      const size_t count = from.get_size() / 2;
      widened = aligned_buffer(count * sizeof(float));
      if (from.data_type() == dnnl::memory::data_type::bf16) {
        bfloat16_span_to_float(static_cast<const uint16_t*>(key), static_cast<float*>(widened.get()), count);
      } else {
        ge::float16_to_float(std::span<const uint16_t>(static_cast<const uint16_t*>(key), count),
                             std::span<float>(static_cast<float*>(widened.get()), count));
      }
      dnnl_memory_desc_t data = from.data;
      data.data_type = dnnl_f32;
      source_desc = dnnl::memory::desc(data);
      source_data = widened.get();
    }
    dnnl::memory src(source_desc, cpu_engine(), const_cast<void*>(source_data));
    dnnl::memory dst(to, cpu_engine(), buffer.get());
    dnnl::stream stream(cpu_engine());
    dnnl::reorder(src, dst).execute(stream, src, dst);
    stream.wait();
    page_out(key, from.get_size());
    const uint64_t id = next_id_++;
    void* address = buffer.get();
    std::shared_ptr<void> packed(address, [this, key, id, buffer = std::move(buffer)](void*) mutable {
      forget(key, id);
      buffer.reset();
    });
    entries_.emplace(key, Entry{source, from, to, packed, id});
    return packed;
  }

 private:
  struct Entry {
    Tensor source;
    dnnl::memory::desc from, to;
    std::weak_ptr<void> packed;
    uint64_t id = 0;
  };

  /// The live packed copy of `key` laid out `from` -> `to`; null when none. mutex_ held.
  std::shared_ptr<void> find_locked(const void* key, const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
    auto range = entries_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second.from == from && it->second.to == to) {
        if (std::shared_ptr<void> packed = it->second.packed.lock()) return packed;
      }
    }
    return nullptr;
  }

  void forget(const void* key, uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto range = entries_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second.id == id) {
        entries_.erase(it);
        return;
      }
    }
  }

  std::mutex mutex_;
  std::unordered_multimap<const void*, Entry> entries_;
  uint64_t next_id_ = 0;
};

PrepackCache& prepack_cache() {
  static PrepackCache* cache = new PrepackCache();  // never destroyed: kernels may outlive statics
  return *cache;
}

}  // namespace

bool prepacked(const Tensor& data, const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  return from == to || prepack_cache().holds(data, from, to);
}

void* prepack(ProgramBuilder& builder, const Tensor& data, const dnnl::memory::desc& from,
              const dnnl::memory::desc& to) {
  if (from == to) {
    // The layout the primitive wants is the tensor's own: no copy (a memory-mapped weight
    // stays resident once). The kernel holds the tensor, so its bytes live as long.
    auto holder = std::make_shared<Tensor>(data);
    return builder.own(std::shared_ptr<void>(holder, holder->raw_data()), const_cast<void*>(data.raw_data()));
  }
  std::shared_ptr<void> packed = prepack_cache().get_or_pack(data, from, to);
  // Counted per kernel even when the cache shares the copy: a session's limit holds
  // whichever of its kernels outlives the others.
  builder.count_held(to.get_size());
  void* address = packed.get();
  return builder.own(std::move(packed), address);
}

}  // namespace ge::cpu_dnnl
