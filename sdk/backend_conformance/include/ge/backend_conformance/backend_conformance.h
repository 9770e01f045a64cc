#pragma once
/// The backend conformance kit: one gtest suite, written once, that every backend runs
/// unchanged (GE's cpu and npu_sim, a vendor's). It checks what GE's runtime relies on:
/// device memory and copies, stream order, events across streams, error propagation, the
/// task sink with address refresh, stream capture and replay, and per-op kernels against
/// the reference backend (cpu) on generated cases. See docs/sdk.md, "Backend conformance
/// kit".
///
/// A vendor's test file (linked with ge::backend_conformance and GTest::gtest_main):
///
///   #include <ge/backend_conformance/backend_conformance.h>
///   GE_BACKEND_CONFORMANCE(Toy, {.backend = "toy", .registries = {"toy_plugins.toml"}});
///
/// or, without writing any code, the installed runner:
///
///   ge-backend-conformance --plugins toy_plugins.toml --backend toy

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ge::backend_conformance {

/// What one instantiation of the suite runs against. Every member has a default, so that
/// designated initializers may name only some (also under -Wextra).
struct Config {
  /// The backend under test, as its plugin registers it.
  std::string backend{};
  /// Plugin registries to read first (the vendor's); relative paths resolve against the
  /// working directory. Then every registry in GE_PLUGINS, then `reference_registry`.
  std::vector<std::filesystem::path> registries{};
  /// GE's registry, which supplies the op libraries, memory assigners, passes and the
  /// reference backend. Empty: the ge_plugins.toml of the GE installation whose
  /// libge_core the test links (PREFIX/bin beside PREFIX/lib).
  std::filesystem::path reference_registry{};
  /// The backend whose results count as correct.
  std::string reference_backend = "cpu";
  /// The largest allocation the device-memory tests make (they make several of it in turn).
  size_t large_allocation_bytes = size_t{32} << 20;
  /// Seeds every generated input and weight, so that a failure reproduces.
  uint32_t seed = 20240611;
  /// Kernel results must satisfy |got - want| <= atol + rtol * |want| (floating point;
  /// integers and booleans must be equal). A kernel case may loosen this for itself.
  double rtol = 1e-4;
  double atol = 1e-5;
};

/// Registers the whole suite for `config` as gtest tests named "<name>/<Area>.<Test>",
/// e.g. "Toy/Streams.RunInSubmissionOrder". Call before RUN_ALL_TESTS (from a static
/// initializer, as GE_BACKEND_CONFORMANCE does, or from main after InitGoogleTest).
/// Plugins load on the first test that runs, once per name. Returns true.
bool register_tests(const std::string& name, const Config& config);

/// The names of the areas and their tests, for documentation and tooling: "Area.Test".
std::vector<std::string> test_names();

/// The main of ge-backend-conformance: `--backend NAME [--plugins REGISTRY]...
/// [--reference NAME] [--reference-plugins REGISTRY]` plus any gtest flag. Returns the
/// process exit status (2 for bad arguments).
int run_main(int argc, char** argv);

}  // namespace ge::backend_conformance

/// Instantiates the suite once: `GE_BACKEND_CONFORMANCE(Name, {.backend = "...", ...})`
/// at namespace scope. `Name` prefixes the test names and must be an identifier.
#define GE_BACKEND_CONFORMANCE(name, ...)                                   \
  [[maybe_unused]] static const bool ge_backend_conformance_##name##_ = \
      ::ge::backend_conformance::register_tests(#name, ::ge::backend_conformance::Config __VA_ARGS__)
