// The plugin entry of libge_backend_cpu.so: registers one backend named "cpu".
// Registry options ([plugin.options]): `synchronous = true` runs every stream's tasks on
// the submitting thread (debugging); `threads = N` sizes the worker pool (0: auto);
// `intra_op_threads = N` is the threads each heavy (oneDNN) kernel uses (0: the cores);
// the kernel settings (CpuKernelSettings, cpu_backend.h): `kernel_providers = ["autofuse",
// "dnnl", "reference"]` (the order prepare() asks them in), `winograd = true`, `int8 =
// "auto" | "f32" | "off"`, `autofuse_mode = "codegen" | "interpret"`. An unknown key is an
// error naming the closest known one.

#include <dlfcn.h>

#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "cpu_backend.h"
#include "ge/plugin_api/plugin.h"

namespace {

// oneDNN runs on OpenMP, whose idle worker threads outlive every parallel region: if
// the host unloaded this library (and libgomp with it) they would run unmapped code at
// exit. Pin the library for the life of the process.
void pin_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&pin_library), &info) != 0 && info.dli_fname != nullptr) {
    (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

ge::Status register_cpu_backend(ge::Registrar& registrar) {
  pin_library();
  try {
    using Type = ge::PluginOptions::Type;
    GE_RETURN_IF_ERROR(registrar.options().check_known_options(
        "backend 'cpu'", {{"synchronous", Type::kBool},
                          {"threads", Type::kInt},
                          {"intra_op_threads", Type::kInt},
                          {"kernel_providers", Type::kStrings},
                          {"winograd", Type::kBool},
                          {"int8", Type::kString},
                          {"autofuse_mode", Type::kString}}));
    GE_ASSIGN_OR_RETURN(ge::CpuDeviceOptions options, ge::CpuDeviceOptions::from_options(registrar.options()));
    GE_ASSIGN_OR_RETURN(ge::CpuKernelSettings settings, ge::CpuKernelSettings::from_options(registrar.options()));
    auto backend = std::make_shared<ge::CpuBackend>();
    backend->set_kernel_settings(std::move(settings));
    GE_RETURN_IF_ERROR(backend->set_intra_op_threads(static_cast<int>(registrar.options().get_int("intra_op_threads", 0))));
    GE_RETURN_IF_ERROR(static_cast<ge::CpuDevice&>(backend->device()).configure(options));
    return registrar.add_backend(std::move(backend));
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("cpu backend: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("cpu", "0.1.0", register_cpu_backend)
