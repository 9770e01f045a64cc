/// The `ge` Python module: GE's sessions, the offline compiler and the plugin list, with
/// numpy arrays in and out. Errors are the engine's ge::Status messages, verbatim, raised
/// as ValueError (bad input, missing file, malformed model) or RuntimeError (the rest).

#include <dlfcn.h>
#include <signal.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "ge/cancellation.h"
#include "ge/model_file.h"
#include "ge/plugin_host.h"
#include "ge/session.h"
#include "ge/specialisation_cache.h"
#include "ge/status.h"
#include "ge/trace.h"
#include "ge/version.h"

namespace py = pybind11;

namespace ge::python {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using RegistryFiles = std::optional<std::vector<fs::path>>;  // plugins=: a list, or None
/// plugin_options=: {"PLUGIN.KEY": value}, each over the registry's [PLUGIN.options].
using PluginSettings = std::vector<PluginSetting>;

/// Set at import: the registry of the plugins built with GE, at GE_PYTHON_REGISTRY (a path
/// CMake computes, relative to this module's folder, the same in the build tree and in an
/// install prefix).
fs::path default_registry;
/// Set at import: ge.TensorInfo, a namedtuple (a reference kept for the process's life).
py::handle tensor_info_type;
/// Set at import: threading.main_thread().ident, the one thread Python runs signal handlers on.
unsigned long main_thread_ident = 0;

[[noreturn]] void raise(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kParseError:
      throw py::value_error(status.message());
    default:
      throw std::runtime_error(status.message());  // pybind11 raises RuntimeError
  }
}

void check(const Status& status) {
  if (!status.is_ok()) raise(status);
}

template <typename T>
T unwrap(Result<T> result) {
  if (!result.is_ok()) raise(result.status());
  return std::move(result).value();
}

/// Runs `work`, which must not touch Python objects, with the GIL released.
template <typename Work>
auto without_gil(Work&& work) {
  py::gil_scoped_release release;
  return work();
}

/// The token of the run in flight on the main thread while our SIGINT handler is
/// installed, and the handler ours replaced (Python's) and chains to.
std::atomic<CancellationToken*> interrupted_run{nullptr};
struct sigaction replaced_sigint {};

void on_sigint(int signal, siginfo_t* info, void* context) {
  if (CancellationToken* token = interrupted_run.load()) token->cancel();
  if ((replaced_sigint.sa_flags & SA_SIGINFO) != 0) {
    if (replaced_sigint.sa_sigaction != nullptr) replaced_sigint.sa_sigaction(signal, info, context);
  } else if (replaced_sigint.sa_handler != SIG_DFL && replaced_sigint.sa_handler != SIG_IGN) {
    replaced_sigint.sa_handler(signal);
  }
}

/// Ctrl-C during a run: the GIL is released, so Python's own SIGINT handler only notes
/// the signal, and the interpreter would act on it once the run ends, which for a long
/// Loop is never. For a run on the main thread (where Python raises KeyboardInterrupt)
/// with a Python handler for SIGINT, ours replaces it for the run: it trips the run's
/// token (the run stops at its next node or iteration) and chains to Python's. Costs two
/// sigaction calls per run; other threads' runs are left alone.
class InterruptibleRun {
 public:
  /// With the GIL held.
  InterruptibleRun() {
    if (PyThread_get_thread_ident() != main_thread_ident) return;
    struct sigaction current {};
    if (sigaction(SIGINT, nullptr, &current) != 0) return;
    const bool python_handler = (current.sa_flags & SA_SIGINFO) != 0
                                    ? current.sa_sigaction != nullptr && current.sa_sigaction != on_sigint
                                    : current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
    if (!python_handler) return;  // ignored, default (the process dies) or already ours
    replaced_sigint = current;
    struct sigaction ours = current;
    ours.sa_sigaction = on_sigint;
    ours.sa_flags = current.sa_flags | SA_SIGINFO;
    interrupted_run.store(&token_);
    installed_ = sigaction(SIGINT, &ours, nullptr) == 0;
    if (!installed_) interrupted_run.store(nullptr);
  }
  ~InterruptibleRun() { restore(); }
  InterruptibleRun(const InterruptibleRun&) = delete;
  InterruptibleRun& operator=(const InterruptibleRun&) = delete;

  RunOptions options() const { return RunOptions{&token_}; }

  /// With the GIL held, once the run returned: Python's handler for a SIGINT that came
  /// during it runs now and its exception (KeyboardInterrupt by default) is raised; a
  /// handler that raises nothing still gets KeyboardInterrupt, as the run was stopped.
  void finish() {
    restore();
    if (!token_.cancelled()) return;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }

 private:
  void restore() {
    if (!installed_) return;
    installed_ = false;
    (void)sigaction(SIGINT, &replaced_sigint, nullptr);
    interrupted_run.store(nullptr);
  }

  CancellationToken token_;
  bool installed_ = false;
};

/// Element types numpy has, under the same names as GE's (data_type_name()).
bool numpy_has(DataType type) {
  static const std::set<DataType> kTypes = {
      DataType::kFloat16, DataType::kFloat32, DataType::kFloat64,   DataType::kInt8,      DataType::kInt16,
      DataType::kInt32,   DataType::kInt64,   DataType::kUInt8,     DataType::kUInt16,    DataType::kUInt32,
      DataType::kUInt64,  DataType::kBool,    DataType::kComplex64, DataType::kComplex128};
  return kTypes.count(type) > 0;
}

/// precision= ("fp32", "bf16", "mixed"), or nullopt for None.
std::optional<Precision> check_precision(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  const std::optional<Precision> precision = parse_precision(*name);
  if (!precision) throw py::value_error("precision must be 'fp32', 'bf16' or 'mixed', got '" + *name + "'");
  return precision;
}

void check_opt_level(int opt_level) {
  if (opt_level < 0 || opt_level > 3) {
    throw py::value_error("opt_level must be 0, 1, 2 or 3, got " + std::to_string(opt_level));
  }
}

/// plugin_options= as settings: keys "PLUGIN.KEY", values a bool, int, float, str or a list
/// of str (what a registry's [PLUGIN.options] line holds). Needs the GIL.
PluginSettings plugin_settings(const std::optional<py::dict>& options) {
  PluginSettings settings;
  for (const auto& [key_object, value] : options.value_or(py::dict())) {
    if (!py::isinstance<py::str>(key_object)) throw py::type_error("plugin_options keys must be 'PLUGIN.KEY' strings");
    const std::string key = key_object.cast<std::string>();
    const size_t dot = key.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == key.size()) {
      throw py::value_error("plugin_options key '" + key + "' is not PLUGIN.KEY (e.g. 'cpu.winograd')");
    }
    PluginSetting setting{key.substr(0, dot), key.substr(dot + 1), false};
    if (py::isinstance<py::bool_>(value)) {
      setting.value = value.cast<bool>();
    } else if (py::isinstance<py::int_>(value)) {
      setting.value = value.cast<int64_t>();
    } else if (py::isinstance<py::float_>(value)) {
      setting.value = value.cast<double>();
    } else if (py::isinstance<py::str>(value)) {
      setting.value = value.cast<std::string>();
    } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      std::vector<std::string> items;
      for (py::handle item : value) {
        if (!py::isinstance<py::str>(item)) throw py::type_error("plugin_options['" + key + "']: a list of str only");
        items.push_back(item.cast<std::string>());
      }
      setting.value = std::move(items);
    } else {
      throw py::type_error("plugin_options['" + key + "'] must be a bool, int, float, str or list of str, got " +
                           std::string(py::str(py::type::of(value).attr("__name__"))));
    }
    settings.push_back(std::move(setting));
  }
  return settings;
}

/// Every registry PluginHost::discover() finds (plugins=, then GE_PLUGINS, then the
/// built-in one), loaded with `settings` over their options. `strict`: any plugin failure
/// is an error, as in ge-run; so is a setting for a plugin no registry defines.
Result<std::shared_ptr<PluginHost>> load_plugins(const RegistryFiles& extra, bool strict,
                                                 const PluginSettings& settings = {}) {
  const std::vector<fs::path> registries =
      PluginHost::discover(extra.value_or(std::vector<fs::path>{}), default_registry);
  if (registries.empty()) {
    return not_found("no plugin registry found: none given with plugins=, GE_PLUGINS is unset or empty, and '" +
                     default_registry.string() + "' does not exist");
  }
  auto host = std::make_shared<PluginHost>();
  for (const PluginSetting& setting : settings) host->set_plugin_option(setting.plugin, setting.key, setting.value);
  for (const fs::path& registry : registries) (void)host->load_registry(registry);  // failures kept in the host
  size_t entry_failures = 0;
  for (const PluginRecord& record : host->records()) entry_failures += record.status.is_ok() ? 0 : 1;
  if (host->failures().size() > (strict ? 0 : entry_failures)) {
    std::string message = std::to_string(host->failures().size()) + " plugin failure(s):";
    for (const Status& failure : host->failures()) message += "\n  " + failure.message();
    return plugin_error(message);
  }
  GE_RETURN_IF_ERROR(host->check_plugin_options_applied());
  return host;
}

/// `array`'s buffer as a tensor of `type` that keeps the array alive, releasing it under
/// the GIL from whichever thread drops it (inputs and bound outputs alike).
Tensor share_array(py::array array, DataType type) {
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  void* data = const_cast<void*>(array.data());
  std::shared_ptr<void> owner(new py::object(std::move(array)), [](void* object) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(object);
  });
  return Tensor::share(type, std::move(shape), data, std::move(owner));
}

/// A numpy array (or anything numpy converts) as a tensor sharing its buffer; the tensor
/// keeps the array alive, and releases it under the GIL from whichever thread drops it.
Tensor to_tensor(py::handle value, const std::string& name) {
  py::array array = py::array::ensure(value, py::array::c_style);  // copies only if not C-contiguous
  if (!array) throw py::type_error("input '" + name + "' is not convertible to a numpy array");
  if (array.dtype().byteorder() == '>') array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));
  const std::string dtype_name = py::str(array.dtype().attr("name"));
  const std::optional<DataType> type = data_type_from_name(dtype_name);
  if (!type || !numpy_has(*type)) {
    throw py::value_error("input '" + name + "' has numpy dtype " + dtype_name +
                          ", which GE does not take: use bool, (u)int8-64, float16/32/64 or complex64/128");
  }
  return share_array(std::move(array), *type);
}

/// A caller's numpy array as the tensor a run writes output `name` into (Session.run's
/// `outputs`): it must be an ndarray, writeable and C-contiguous, of a dtype GE has; the
/// tensor keeps the array alive. Its dtype and shape are checked against the run's.
Tensor bound_tensor(py::handle value, const std::string& name) {
  if (!py::isinstance<py::array>(value)) {
    throw py::type_error("outputs['" + name + "'] must be a numpy array, got " + std::string(py::repr(value.get_type())));
  }
  py::array array = py::reinterpret_borrow<py::array>(value);
  if (!array.writeable()) throw py::value_error("outputs['" + name + "'] is read-only: bind a writeable array");
  if (!(array.flags() & py::array::c_style)) {
    throw py::value_error("outputs['" + name + "'] is not C-contiguous: bind a contiguous array (numpy.ascontiguousarray)");
  }
  if (array.dtype().byteorder() == '>') throw py::value_error("outputs['" + name + "'] is big-endian");
  const std::string dtype_name = py::str(array.dtype().attr("name"));
  const std::optional<DataType> type = data_type_from_name(dtype_name);
  if (!type || !numpy_has(*type)) throw py::value_error("outputs['" + name + "'] has numpy dtype " + dtype_name + ", which GE does not take");
  return share_array(std::move(array), *type);
}

/// `tensor` as a numpy array: a view that keeps the tensor alive, or a copy (`copy`).
py::array to_array(Tensor tensor, const std::string& name, bool copy) {
  if (!numpy_has(tensor.dtype())) {
    throw py::type_error("output '" + name + "' has dtype " + std::string(data_type_name(tensor.dtype())) +
                         ", which numpy has no type for");
  }
  const py::dtype dtype(std::string(data_type_name(tensor.dtype())));
  const std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  if (copy || tensor.element_count() == 0) return py::array(dtype, shape, tensor.raw_data());
  auto* held = new Tensor(std::move(tensor));
  py::capsule owner(held, [](void* object) { delete static_cast<Tensor*>(object); });
  return py::array(dtype, shape, held->raw_data(), owner);
}

/// Name, dtype (numpy's, else GE's name) and shape (ints, str for a named dim, None for
/// an unknown one; None for an unknown rank) of graph values, as ge.TensorInfo tuples.
py::list describe(const std::vector<Value*>& values) {
  py::list list;
  for (const Value* value : values) {
    const TensorDesc& desc = value->desc();
    const std::string type_name(data_type_name(desc.dtype));
    py::object dtype = numpy_has(desc.dtype) ? py::object(py::dtype(type_name)) : py::object(py::str(type_name));
    py::object shape = py::none();
    if (desc.shape) {
      py::list dims;
      for (const Dim& dim : *desc.shape) {
        if (dim.is_static()) dims.append(dim.value);
        else if (!dim.symbol.empty()) dims.append(dim.symbol);
        else dims.append(py::none());
      }
      shape = dims;
    }
    list.append(tensor_info_type(value->name(), dtype, shape));
  }
  return list;
}

/// {name: [d0, d1, ...] or 'DTYPE[d0,d1,...]'} as InputShapes (ge/input_shapes.h).
std::vector<InputShape> python_input_shapes(const std::optional<py::dict>& shapes) {
  std::vector<InputShape> out;
  for (const auto& [key, value] : shapes.value_or(py::dict())) {
    if (!py::isinstance<py::str>(key)) throw py::type_error("input_shapes keys must be str, got " + std::string(py::repr(key)));
    const std::string name = py::cast<std::string>(key);
    if (py::isinstance<py::str>(value)) {
      Result<std::vector<InputShape>> parsed = parse_input_shapes(name + "=" + py::cast<std::string>(value));
      if (!parsed.is_ok()) throw py::value_error("input_shapes: " + parsed.status().message());
      out.insert(out.end(), parsed->begin(), parsed->end());
      continue;
    }
    InputShape shape;
    shape.name = name;
    try {
      shape.dims = py::cast<std::vector<int64_t>>(value);
    } catch (const py::cast_error&) {
      throw py::type_error("input_shapes['" + name + "'] must be a sequence of ints or a 'DTYPE[D0,...]' string, got " +
                           std::string(py::repr(value)));
    }
    out.push_back(std::move(shape));
  }
  return out;
}

class PythonSession {
 public:
  PythonSession(const py::object& model_arg, const std::optional<std::string>& backend, const RegistryFiles& plugins,
                int threads, int opt_level, const std::optional<std::string>& precision_text, int specialise_after,
                const std::optional<py::dict>& plugin_options, const std::optional<py::dict>& input_shapes,
                const std::string& model_format) {
    check_opt_level(opt_level);
    const PluginSettings settings = plugin_settings(plugin_options);
    const std::optional<Precision> precision = check_precision(precision_text);
    if (specialise_after < 1) {
      throw py::value_error("specialise_after must be at least 1, got " + std::to_string(specialise_after));
    }
    // A model is a file, or the bytes of one (`model_format` names the parser: 'onnx', 'torchscript').
    const bool in_memory = py::isinstance<py::bytes>(model_arg);
    const std::string bytes = in_memory ? py::cast<std::string>(model_arg) : std::string();
    const fs::path model = in_memory ? fs::path() : py::cast<fs::path>(model_arg);
    ParseOptions parse;
    parse.input_shapes = python_input_shapes(input_shapes);
    model_ = in_memory ? "<" + model_format + " model in memory>" : model.string();
    Status status = without_gil([&]() -> Status {
      std::error_code error;
      if (!in_memory && !fs::is_regular_file(model, error)) return not_found("model file '" + model_ + "' does not exist");
      GE_ASSIGN_OR_RETURN(host_, load_plugins(plugins, /*strict=*/true, settings));
      SessionOptions options;
      const bool compiled = !in_memory && model.extension() == ".gem";
      options.backend = backend.value_or(compiled ? "" : "cpu");  // a .gem: the backend it was compiled for
      options.passes.opt_level = opt_level;
      options.threads = threads;
      options.specialise_after = specialise_after;
      options.precision = precision.value_or(Precision::kFp32);  // a .gem: kFp32 takes its own
      options.parse = parse;
      created_ = Clock::now();
      if (in_memory) {
        Parser* parser = nullptr;
        std::string names;
        for (const std::shared_ptr<Parser>& p : host_->parsers()) {
          if (p->name() == model_format) parser = p.get();
          names += (names.empty() ? "" : ", ") + p->name();
        }
        if (parser == nullptr) {
          return not_found("no parser plugin named '" + model_format + "' is loaded (loaded: " + names + ")");
        }
        GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parser->parse_bytes_with(bytes, {}, parse));
        GE_ASSIGN_OR_RETURN(session_, Session::create(*host_, std::move(graph), options));
      } else {
        GE_ASSIGN_OR_RETURN(session_, compiled ? create_session_from_model_file(*host_, model, options)
                                               : Session::create(*host_, model, options));
      }
      loaded_ = Clock::now();
      if (compiled && precision && session_->requested_precision() != *precision) {
        return invalid_argument("model file '" + model_ + "' was compiled with precision " +
                                std::string(precision_name(session_->requested_precision())) + ", not " +
                                std::string(precision_name(*precision)) +
                                ": load it with precision=None, or recompile it with that precision");
      }
      return Status::ok();
    });
    check(status);
  }

  /// Runs once, the GIL released; concurrent calls run concurrently (Session::run).
  py::dict run(const py::dict& feeds, const std::optional<fs::path>& profile, const std::optional<py::dict>& bind) {
    NamedTensors inputs;
    for (const auto& [key, value] : feeds) {
      if (!py::isinstance<py::str>(key)) {
        throw py::type_error("input names must be str, got " + std::string(py::repr(key)));
      }
      const std::string name = py::cast<std::string>(key);
      inputs.emplace_back(name, to_tensor(value, name));
    }
    NamedTensors bound;
    for (const auto& [key, value] : bind.value_or(py::dict())) {
      if (!py::isinstance<py::str>(key)) {
        throw py::type_error("output names must be str, got " + std::string(py::repr(key)));
      }
      const std::string name = py::cast<std::string>(key);
      bound.emplace_back(name, bound_tensor(value, name));
    }
    std::vector<Tensor> outputs;
    InterruptibleRun interruptible;
    RunOptions options = interruptible.options();
    if (!bound.empty()) options.bound_outputs = &bound;
    const Status status = without_gil([&] {
      return profile ? run_profiled(inputs, outputs, *profile, options) : run_shared(inputs, outputs, options);
    });
    interruptible.finish();
    check(status);

    // Views where the output owns its bytes; copies of constants (the model's weights, maybe
    // a read-only mapping), of bytes inside an input and of a buffer already returned.
    const std::vector<Value*>& values = session_->graph().outputs();
    std::set<const void*> returned;
    py::dict result;
    for (size_t k = 0; k < outputs.size() && k < values.size(); ++k) {
      if (bind && bind->contains(values[k]->name()) && returned.insert(outputs[k].raw_data()).second) {
        result[py::str(values[k]->name())] = (*bind)[py::str(values[k]->name())];  // the caller's own array
        continue;
      }
      const auto* begin = static_cast<const char*>(outputs[k].raw_data());
      const bool in_input = std::any_of(inputs.begin(), inputs.end(), [&](const auto& input) {
        const auto* data = static_cast<const char*>(input.second.raw_data());
        return begin >= data && begin < data + input.second.byte_size();
      });
      const bool copy = values[k]->is_constant() || in_input || !returned.insert(begin).second;
      result[py::str(values[k]->name())] = to_array(std::move(outputs[k]), values[k]->name(), copy);
    }
    return result;
  }

  /// What the session has compiled and prepared (what ge-run -v prints), read between
  /// runs: it waits for runs in flight.
  py::dict statistics() {
    py::dict result;
    py::list signatures;
    py::dict specialisations, kernels, pool;
    std::unique_lock lock(runs_, std::defer_lock);
    {
      py::gil_scoped_release release;  // a run in flight holds runs_ without the GIL
      lock.lock();
    }
    if (const SpecialisationCache* cache = session_->specialisations()) {
      for (const std::string& signature : cache->signatures()) signatures.append(signature);
      const SpecialisationStatistics& s = cache->statistics();
      specialisations["hits"] = s.hits;
      specialisations["misses"] = s.misses;
      specialisations["evictions"] = s.evictions;
      specialisations["sunk"] = s.sunk;
      specialisations["per_op"] = s.per_op;
      specialisations["unseen"] = s.unseen;
      specialisations["entries"] = s.entries;
      specialisations["capacity"] = s.capacity;
      specialisations["compile_ms"] = std::chrono::duration<double, std::milli>(s.compile_time).count();
    }
    if (const std::optional<KernelStatistics> k = session_->kernel_statistics()) {
      kernels["prepared"] = k->prepared;
      kernels["reused"] = k->reused;
      kernels["evicted"] = k->evicted;
      kernels["folded"] = k->folded;
      kernels["plans_built"] = k->plans_built;
      kernels["plans_retargeted"] = k->plans_retargeted;
      kernels["nodes_reinferred"] = k->nodes_reinferred;
      kernels["nodes_kept"] = k->nodes_kept;
    }
    const TensorPoolStatistics p = session_->tensor_pool().statistics();
    pool["hits"] = p.hits;
    pool["misses"] = p.misses;
    pool["in_use_bytes"] = p.in_use_bytes;
    pool["peak_in_use_bytes"] = p.peak_in_use_bytes;
    pool["held_bytes"] = p.held_bytes;
    result["signatures"] = signatures;
    result["specialisations"] = specialisations;
    result["kernels"] = kernels;
    result["tensor_pool"] = pool;
    return result;
  }

  py::list inputs() const { return describe(session_->graph().runtime_inputs()); }
  py::list outputs() const { return describe(session_->graph().outputs()); }
  const std::string& backend() const { return session_->backend_name(); }
  std::string precision() const { return std::string(precision_name(session_->precision())); }
  std::string repr() const { return "ge.Session('" + model_ + "', backend='" + backend() + "')"; }

 private:
  Status run_shared(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
    std::shared_lock lock(runs_);
    return session_->run(inputs, outputs, options);
  }

  /// One run alone on the device, its tasks traced, written as a Chrome trace laid out as
  /// ge-run --profile lays out its own (tools/ge-run/profile.cc): the session's compile
  /// stages and the run in wall time from creation, the device's tasks per stream.
  Status run_profiled(const NamedTensors& inputs, std::vector<Tensor>& outputs, const fs::path& file,
                      const RunOptions& options) {
    std::unique_lock lock(runs_);  // tracing is per device: no other run of this session in flight
    GE_ASSIGN_OR_RETURN(Backend * backend, host_->backend(session_->backend_name()));
    Device& device = backend->device();
    const Clock::time_point epoch = Clock::now();
    const bool traced = device.set_task_tracing(true).is_ok();
    const Clock::time_point start = Clock::now();
    const Status status = session_->run(inputs, outputs, options);
    const Clock::time_point end = Clock::now();
    std::vector<TaskTraceRecord> tasks;
    if (traced) {
      tasks = device.take_task_trace();
      (void)device.set_task_tracing(false);
    }
    GE_RETURN_IF_ERROR(status);

    auto us = [](Clock::duration duration) { return std::chrono::duration<double, std::micro>(duration).count(); };
    ChromeTrace trace;
    trace.add_metadata("model", model_);
    trace.add_metadata("backend", session_->backend_name());
    trace.add_metadata("device", device.name());
    trace.add_metadata("device_traced", int64_t{traced});
    trace.add_metadata("runs", int64_t{1});
    const int host = trace.add_process("ge python (wall time)");
    const TraceTrack compile = trace.add_track(host, "compile");
    std::vector<StageTiming> stages = session_->stage_timings();
    if (stages.empty()) stages.push_back(StageTiming{"load model file", created_, loaded_ - created_});
    Clock::time_point passes_end;  // the passes lie inside the "passes" stage
    for (const StageTiming& stage : stages) {
      const bool pass = stage.name != "passes" && stage.start + stage.duration <= passes_end;
      trace.add_event(compile, stage.name, us(stage.start - created_), us(stage.duration), pass ? "pass" : "compile");
      if (stage.name == "passes") passes_end = stage.start + stage.duration;
    }
    trace.add_event(trace.add_track(host, "runs"), "run 0", us(start - created_), us(end - start), "run");
    if (traced) {
      const int process =
          trace.add_process(device.name() + (device.simulated_time() ? " (simulated time)" : " (wall time)"));
      const double offset_us = device.simulated_time() ? 0.0 : us(epoch - created_);
      std::map<int, TraceTrack> streams;
      for (const TaskTraceRecord& task : tasks) streams.emplace(task.stream, TraceTrack{});
      for (auto& [id, track] : streams) track = trace.add_track(process, "stream " + std::to_string(id));
      for (const TaskTraceRecord& task : tasks) {
        const char* category = task.name == "memcpy"                                       ? "memcpy"
                               : task.name == "memset"                                     ? "memset"
                               : task.name == "event_record" || task.name == "event_wait" ? "event"
                                                                                           : "kernel";
        trace.add_event(streams.at(task.stream), task.name, offset_us + task.start_ns / 1000.0,
                        std::max(0.0, task.end_ns - task.start_ns) / 1000.0, category, task.node);
      }
    }
    return trace.write(file);
  }

  std::string model_;
  std::shared_ptr<PluginHost> host_;  // outlives session_ (declared first)
  std::unique_ptr<Session> session_;
  Clock::time_point created_, loaded_;  // created_: time zero of profiles
  std::shared_mutex runs_;              // shared by plain runs, exclusive for a profiled one
};

void compile(const fs::path& model, const fs::path& output, const std::string& backend, const RegistryFiles& plugins,
             int opt_level, const std::string& precision_text, const std::optional<py::dict>& plugin_options) {
  check_opt_level(opt_level);
  const Precision precision = *check_precision(precision_text);
  const PluginSettings settings = plugin_settings(plugin_options);
  check(without_gil([&]() -> Status {
    GE_ASSIGN_OR_RETURN(std::shared_ptr<PluginHost> host, load_plugins(plugins, /*strict=*/true, settings));
    SessionOptions options;
    options.backend = backend;
    options.passes.opt_level = opt_level;
    options.precision = precision;
    // As ge-compile compiles (tools/ge-compile/main.cc): no device is touched.
    GE_ASSIGN_OR_RETURN(Parser * parser, host->parser_for(model));
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parser->parse_file(model));
    Result<Compilation> compiled = ge::compile(*host, std::move(graph), options);
    if (!compiled.is_ok()) return compiled.status().with_context(model.string());
    ModelFileInfo info;
    info.backend = backend;
    info.opt_level = opt_level;
    info.precision = compiled->precision();  // fp32 where the backend has no bf16 arithmetic
    info.producer = "ge python " GE_VERSION_STRING;
    info.source_model = model.filename().string();
    info.plugins = required_plugins(*host, backend);
    std::optional<CompiledPlans> plans;
    if (const CompiledModel* sink = compiled->task_sink()) plans = sink->plans();
    return write_model_file(output, compiled->graph(), info, plans ? &*plans : nullptr, compiled->memory_statistics());
  }));
}

py::list list_plugins(const RegistryFiles& plugins) {
  const std::shared_ptr<PluginHost> host = unwrap(without_gil([&] { return load_plugins(plugins, /*strict=*/false); }));
  py::list list;
  for (const PluginRecord& record : host->records()) {
    py::dict entry;
    entry["name"] = record.name;
    entry["kind"] = plugin_kind_name(record.kind);
    entry["library"] = record.library.string();
    entry["registry"] = record.registry_file.string();
    entry["version"] = record.plugin_version;
    entry["loaded"] = record.loaded;
    entry["error"] = record.status.is_ok() ? py::object(py::none()) : py::object(py::str(record.status.message()));
    list.append(entry);
  }
  return list;
}

}  // namespace
}  // namespace ge::python

PYBIND11_MODULE(_ge, m) {
  using namespace ge::python;
  namespace fs = std::filesystem;
  m.doc() = "GE, an open graph engine: compile and run ONNX models and .gem files on numpy arrays.";
  m.attr("__version__") = GE_VERSION_STRING;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&compile), &self) != 0 && self.dli_fname != nullptr) {
    std::error_code error;  // a symlinked module: the registry is beside the real one
    fs::path module = fs::canonical(self.dli_fname, error);
    if (error) module = fs::absolute(self.dli_fname);
    default_registry = (module.parent_path() / GE_PYTHON_REGISTRY).lexically_normal();
  }
  py::object tensor_info = py::module_::import("collections").attr("namedtuple")("TensorInfo", "name dtype shape");
  m.attr("TensorInfo") = tensor_info;
  tensor_info_type = tensor_info.release();
  main_thread_ident = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();

  py::class_<PythonSession>(m, "Session",
                            "A compiled model. run() may be called from several threads at once: the GIL is "
                            "released while the engine runs.")
      .def(py::init<const py::object&, const std::optional<std::string>&, const RegistryFiles&, int, int,
                    const std::optional<std::string>&, int, const std::optional<py::dict>&,
                    const std::optional<py::dict>&, const std::string&>(),
           py::arg("model"), py::arg("backend") = py::none(), py::arg("plugins") = py::none(), py::arg("threads") = 0,
           py::arg("opt_level") = 2, py::arg("precision") = py::none(), py::arg("specialise_after") = 2,
           py::arg("plugin_options") = py::none(), py::arg("input_shapes") = py::none(),
           py::arg("model_format") = "onnx",
           "Compiles an .onnx model for `backend` (default cpu) at `opt_level` (0-3), or loads a .gem file "
           "(on the backend it was compiled for unless `backend` is given; opt_level does not apply). "
           "`plugins`: extra registry files, read before GE_PLUGINS and the built-in registry. "
           "`threads`: threads per heavy kernel, 0 for the backend's default. `precision`: 'fp32', 'bf16' or "
           "'mixed', what the heavy ops of a float32 model compute in (None: fp32, or a .gem's own; another "
           "than a .gem's is a ValueError); a backend without bfloat16 arithmetic warns once and runs fp32 "
           "(see Session.precision). `specialise_after`: a model with dynamic input dims is compiled for an "
           "input-shape signature on its Nth run; before, the signature runs per op on plans that share kernels. "
           "`plugin_options`: {'PLUGIN.KEY': value} over the registry's [PLUGIN.options], as ge-run's "
           "--plugin-option (e.g. {'cpu.winograd': False, 'cpu.kernel_providers': ['dnnl', 'reference']}). "
           "`model` may also be the bytes of a model, parsed by the parser plugin `model_format` names ('onnx', "
           "'torchscript'). `input_shapes`: {name: [d0, ...] or 'DTYPE[d0,...]'}, as ge-run's --input-shape: "
           "fixes dynamic dims, and gives a TorchScript archive the shapes it does not store.")
      .def("run", &PythonSession::run, py::arg("inputs"), py::kw_only(), py::arg("profile") = py::none(),
           py::arg("outputs") = py::none(),
           "Runs once on {name: numpy array}; returns {output name: numpy array}. `outputs`: {output name: "
           "numpy array} written in place and returned as themselves (a decode loop reuses its buffers): each "
           "writeable, C-contiguous, of the dtype and shape the run computes (else ValueError), overlapping no "
           "input and no other bound output. `profile`: also write a "
           "Chrome trace of this run (compile stages, the run, the device's tasks) to that file. Ctrl-C "
           "(SIGINT) during a run on the main thread stops it at its next node or loop iteration and raises "
           "KeyboardInterrupt (or what the Python SIGINT handler raises); the session stays usable.")
      .def("statistics", &PythonSession::statistics,
           "What the session compiled and prepared, as ge-run -v prints it: 'signatures' (each input-shape "
           "signature held, how it runs, its compile time and runs), 'specialisations' (hits, misses, evictions, "
           "sunk, per_op, unseen, entries, capacity, compile_ms), 'kernels' (the per-op plans: prepared, reused, "
           "evicted, folded, plans_built, plans_retargeted, nodes_reinferred, nodes_kept) and 'tensor_pool' (hits, "
           "misses, in_use_bytes, peak_in_use_bytes, held_bytes). Waits for runs in flight.")
      .def_property_readonly("inputs", &PythonSession::inputs, "The inputs to bind, as TensorInfo(name, dtype, shape).")
      .def_property_readonly("outputs", &PythonSession::outputs, "The outputs, as TensorInfo(name, dtype, shape).")
      .def_property_readonly("backend", &PythonSession::backend)
      .def_property_readonly("precision", &PythonSession::precision,
                             "What the kernels compute in: 'fp32', 'bf16' or 'mixed' (fp32 where the backend had "
                             "none of the precision asked).")
      .def("__repr__", &PythonSession::repr);

  m.def("compile", &compile, py::arg("model"), py::arg("output_path"), py::arg("backend") = "cpu",
        py::arg("plugins") = py::none(), py::arg("opt_level") = 2, py::arg("precision") = "fp32",
        py::arg("plugin_options") = py::none(),
        "Compiles `model` for `backend` into a .gem file at `output_path`, as ge-compile does (no device is "
        "created); the file records `precision` (fp32 where the backend has no bfloat16 arithmetic) and runs "
        "in it. `plugin_options`: as for Session.");
  m.def("list_plugins", &list_plugins, py::arg("plugins") = py::none(),
        "Every plugin entry of the registries read (as ge.Session reads them): dicts with name, kind, "
        "library, registry, version, loaded and error.");
}
