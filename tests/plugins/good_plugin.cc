// A well-formed test plugin: registers a pass whose name comes from the options table
// (default "test_noop"). With `fail_registration = true` its registration returns an
// error, which the host must report. Built twice: as "test_good" and, with
// GE_TEST_PLUGIN_NAME, as another plugin registering the same components.
#include "ge/plugin_api/plugin.h"

namespace {

class NoopPass final : public ge::Pass {
 public:
  explicit NoopPass(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  ge::Status run(ge::Graph&, ge::PassContext&, bool& changed) override {
    changed = false;
    return ge::Status::ok();
  }

 private:
  std::string name_;
};

ge::Status register_test_plugin(ge::Registrar& registrar) {
  if (registrar.options().get_bool("fail_registration", false)) {
    return ge::invalid_argument("test plugin refuses to register (fail_registration = true)");
  }
  if (registrar.options().get_bool("throw_in_registration", false)) {
    throw std::runtime_error("test plugin throws");
  }
  ge::PassInfo info;
  info.name = registrar.options().get_string("pass_name", "test_noop");
  info.min_opt_level = 4;  // never part of a default pipeline
  info.create = [name = info.name] { return std::make_unique<NoopPass>(name); };
  return registrar.add_pass(std::move(info));
}

}  // namespace

#ifndef GE_TEST_PLUGIN_NAME
#define GE_TEST_PLUGIN_NAME "test_good"
#endif

GE_DEFINE_PLUGIN(GE_TEST_PLUGIN_NAME, "1.2.3", register_test_plugin)
