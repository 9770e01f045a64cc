// run_main(): the command line of ge-backend-conformance.
#include <cstring>
#include <iostream>
#include <string>

#include "ge/backend_conformance/backend_conformance.h"
#include "suite.h"

namespace ge::backend_conformance {
namespace {

constexpr const char* kUsage =
    "usage: ge-backend-conformance --backend NAME [--plugins REGISTRY]... [--reference NAME]\n"
    "                              [--reference-plugins REGISTRY] [--list] [gtest flags]\n"
    "Runs GE's backend conformance suite on backend NAME. --plugins: registries to read first\n"
    "(the vendor's); GE's own registry (beside libge_core, or --reference-plugins) supplies the\n"
    "op libraries and the reference backend (--reference, default cpu). --list prints the tests.\n"
    "gtest flags (e.g. --gtest_filter='*/Kernels.*') select and report.\n";

}  // namespace

int run_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // takes the gtest flags out of argv
  Config config;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string text;
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (flag == "--list") {
      list = true;
    } else if (flag == "--backend" && value(&text)) {
      config.backend = text;
    } else if (flag == "--plugins" && value(&text)) {
      config.registries.emplace_back(text);
    } else if (flag == "--reference" && value(&text)) {
      config.reference_backend = text;
    } else if (flag == "--reference-plugins" && value(&text)) {
      config.reference_registry = text;
    } else {
      std::cerr << "ge-backend-conformance: " << (flag.rfind("--", 0) == 0 ? "bad or incomplete option '" : "unexpected '")
                << flag << "'\n" << kUsage;
      return 2;
    }
  }
  if (list) {
    for (const std::string& name : test_names()) std::cout << name << "\n";
    return 0;
  }
  if (config.backend.empty()) {
    std::cerr << "ge-backend-conformance: --backend NAME is required\n" << kUsage;
    return 2;
  }
  register_tests(config.backend, config);
  return RUN_ALL_TESTS();
}

}  // namespace ge::backend_conformance
