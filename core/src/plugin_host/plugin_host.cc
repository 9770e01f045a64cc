// The plugin host (ge/plugin_host.h): finds, loads and collects plugins.
#include "ge/plugin_host.h"

#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kernel_library_backend.h"
#include "ge/logging.h"
#include "ge/pass_order.h"
#include "ge/plugin_api/plugin_descriptor.h"
#include "ge/version.h"
#include "plugin_registry.h"

namespace ge {

const char* plugin_kind_name(PluginKind kind) {
  switch (kind) {
    case PluginKind::kParser: return "parser";
    case PluginKind::kPass: return "pass";
    case PluginKind::kMemoryAssigner: return "memory_assigner";
    case PluginKind::kBackend: return "backend";
    case PluginKind::kOpLibrary: return "op_library";
  }
  return "unknown";
}

namespace {

// "0.2" of "0.2.1": releases of one major.minor keep the C++ interface of the plugin API.
std::string major_minor(const std::string& version) {
  const size_t first = version.find('.');
  if (first == std::string::npos) return version;
  return version.substr(0, version.find('.', first + 1));
}

// The descriptor's core version and standard library against this build's (ABI >= 4).
Status check_build_compatibility(const GePluginDescriptor& descriptor) {
  const std::string compiler = descriptor.compiler != nullptr ? descriptor.compiler : "an unknown compiler";
  const std::string core = descriptor.core_version != nullptr ? descriptor.core_version : "";
  if (major_minor(core) != major_minor(GE_VERSION_STRING)) {
    return plugin_error("was built against GE " + (core.empty() ? std::string("(no version)") : core) +
                        " but this is GE " GE_VERSION_STRING " (plugins need the same major.minor; rebuild it)");
  }
  const std::string stdlib = descriptor.stdlib_abi != nullptr ? descriptor.stdlib_abi : "";
  if (stdlib != GE_STDLIB_ABI) {
    return plugin_error("was built with " + (stdlib.empty() ? std::string("an unknown standard library") : stdlib) +
                        " (" + compiler + ") but GE with " GE_STDLIB_ABI " (" GE_COMPILER
                        "): C++ objects cannot cross between them; rebuild it with GE's toolchain");
  }
  return Status::ok();
}

std::string where(const std::filesystem::path& file, int line) { return detail::registry_where(file, line); }

}  // namespace

struct PluginHost::Impl {
  // Declared first so that it is destroyed last: components hold code from the libraries.
  std::vector<boost::dll::shared_library> libraries;
  std::vector<std::shared_ptr<Parser>> parsers;
  std::vector<PassInfo> passes;
  std::vector<std::shared_ptr<MemoryAssigner>> memory_assigners;
  std::vector<std::shared_ptr<Backend>> plugin_backends;  // as their plugins registered them
  std::vector<std::shared_ptr<Backend>> backends;         // with their kernel libraries in front
  std::vector<std::shared_ptr<const OpLibrary>> op_libraries;
  std::vector<std::shared_ptr<const KernelLibrary>> kernel_libraries;
  std::set<std::filesystem::path> loaded_registries;
  std::map<std::string, PluginOptions> option_overrides;  // set_plugin_option, by plugin name
  struct NameOwner {
    std::filesystem::path registry;  // the registry that defined the name first
    std::string where;               // "file:line"
    PluginKind kind = PluginKind::kParser;
  };
  std::map<std::string, NameOwner> plugin_names;  // plugin name -> its first definition
};

namespace {

/// Collects one plugin's components; committed to the host only if registration succeeds.
class PendingRegistrar final : public Registrar {
 public:
  PendingRegistrar(const PluginHost& host, PluginKind kind, const PluginOptions& options)
      : host_(host), kind_(kind), options_(options) {}

  const PluginOptions& options() const override { return options_; }

  Status add_parser(std::shared_ptr<Parser> parser) override {
    if (!parser) return invalid_argument("add_parser: null parser");
    GE_RETURN_IF_ERROR(admit(PluginKind::kParser, parser->name()));
    parsers.push_back(std::move(parser));
    return Status::ok();
  }
  Status add_pass(PassInfo pass) override {
    if (!pass.create) return invalid_argument("add_pass '" + pass.name + "': no factory");
    GE_RETURN_IF_ERROR(admit(PluginKind::kPass, pass.name));
    passes.push_back(std::move(pass));
    return Status::ok();
  }
  Status add_memory_assigner(std::shared_ptr<MemoryAssigner> assigner) override {
    if (!assigner) return invalid_argument("add_memory_assigner: null assigner");
    GE_RETURN_IF_ERROR(admit(PluginKind::kMemoryAssigner, assigner->name()));
    memory_assigners.push_back(std::move(assigner));
    return Status::ok();
  }
  Status add_backend(std::shared_ptr<Backend> backend) override {
    if (!backend) return invalid_argument("add_backend: null backend");
    GE_RETURN_IF_ERROR(admit(PluginKind::kBackend, backend->name()));
    backends.push_back(std::move(backend));
    return Status::ok();
  }
  Status add_op_library(std::shared_ptr<const OpLibrary> library) override {
    if (!library) return invalid_argument("add_op_library: null library");
    GE_RETURN_IF_ERROR(admit(PluginKind::kOpLibrary, library->name()));
    op_libraries.push_back(std::move(library));
    return Status::ok();
  }
  Status add_kernel_library(std::shared_ptr<const KernelLibrary> library) override {
    if (!library) return invalid_argument("add_kernel_library: null library");
    GE_RETURN_IF_ERROR(admit(PluginKind::kOpLibrary, library->name(), "kernel_library"));
    kernel_libraries.push_back(std::move(library));
    return Status::ok();
  }

  std::vector<std::string> components;
  std::vector<std::shared_ptr<Parser>> parsers;
  std::vector<PassInfo> passes;
  std::vector<std::shared_ptr<MemoryAssigner>> memory_assigners;
  std::vector<std::shared_ptr<Backend>> backends;
  std::vector<std::shared_ptr<const OpLibrary>> op_libraries;
  std::vector<std::shared_ptr<const KernelLibrary>> kernel_libraries;

 private:
  /// `label` names the component in messages and records; the plugin kind's by default.
  Status admit(PluginKind kind, const std::string& name, const char* label_kind = nullptr) {
    if (kind != kind_) {
      return plugin_error(std::string("it is declared as kind '") + plugin_kind_name(kind_) + "' but registered a " +
                          plugin_kind_name(kind) + " '" + name + "'");
    }
    const std::string kind_label = label_kind != nullptr ? label_kind : plugin_kind_name(kind);
    if (name.empty()) return plugin_error("it registered a " + kind_label + " with an empty name");
    const std::string label = kind_label + " " + name;
    if (std::find(components.begin(), components.end(), label) != components.end()) {
      return plugin_error("duplicate component name: it registers the " + label + " twice");
    }
    for (const PluginRecord& r : host_.records()) {
      if (std::find(r.components.begin(), r.components.end(), label) != r.components.end()) {
        return plugin_error("duplicate component name: the " + label + " is already registered by plugin '" + r.name +
                            "' (" + where(r.registry_file, r.registry_line) + ", library '" + r.library.string() + "')");
      }
    }
    components.push_back(label);
    return Status::ok();
  }

  const PluginHost& host_;
  PluginKind kind_;
  const PluginOptions& options_;
};


}  // namespace

PluginHost::PluginHost() : impl_(std::make_unique<Impl>()) {}

PluginHost::~PluginHost() {
  // Components first (their code lives in the libraries), then the libraries.
  impl_->parsers.clear();
  impl_->passes.clear();
  impl_->memory_assigners.clear();
  impl_->backends.clear();
  impl_->plugin_backends.clear();
  impl_->op_libraries.clear();
  impl_->kernel_libraries.clear();
  impl_->libraries.clear();
}

std::vector<std::filesystem::path> PluginHost::discover(const std::vector<std::filesystem::path>& explicit_files,
                                                        const std::filesystem::path& default_registry) {
  std::vector<std::filesystem::path> files = explicit_files;
  if (const char* env = std::getenv("GE_PLUGINS")) {
    std::stringstream list(env);
    std::string item;
    while (std::getline(list, item, ':')) {
      if (!item.empty()) files.emplace_back(item);
    }
  }
  std::error_code ec;
  if (!default_registry.empty() && std::filesystem::exists(default_registry, ec)) files.push_back(default_registry);
  return files;
}

namespace {

/// The registry file's text; kNotFound when it is not a readable regular file.
Result<std::string> read_registry_file(const std::filesystem::path& registry_file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(registry_file, ec)) {
    return not_found("plugin registry '" + registry_file.string() + "' does not exist or is not a file");
  }
  std::ifstream in(registry_file, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  if (!in && !in.eof()) return not_found("plugin registry '" + registry_file.string() + "' cannot be read");
  return contents.str();
}

/// A plugin library opened and checked: its descriptor is of this ABI and build and names
/// the plugin as the registry entry does.
struct OpenedPlugin {
  boost::dll::shared_library library;
  const GePluginDescriptor* descriptor = nullptr;
};

/// Opens `record`'s library (RTLD_NOW | RTLD_LOCAL) and checks its descriptor; errors
/// begin with `who` ("registry:line: plugin 'name'").
Result<OpenedPlugin> open_plugin(const PluginRecord& record, const std::string& who) {
  const std::string library = "'" + record.library.string() + "'";
  std::error_code ec;
  if (!std::filesystem::exists(record.library, ec)) {
    return not_found(who + ": library file " + library + " does not exist");
  }
  OpenedPlugin opened;
  try {
    opened.library.load(record.library, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& error) {
    return plugin_error(who + ": cannot load library " + library + ": " + error.what());
  }
  if (!opened.library.has(GE_PLUGIN_ENTRY_SYMBOL)) {
    return plugin_error(who + ": library " + library + " does not export the entry symbol '" +
                        GE_PLUGIN_ENTRY_SYMBOL + "' (define it with GE_DEFINE_PLUGIN)");
  }
  try {
    opened.descriptor = opened.library.get<const GePluginDescriptor*()>(GE_PLUGIN_ENTRY_SYMBOL)();
  } catch (...) {
    opened.descriptor = nullptr;
  }
  const GePluginDescriptor* descriptor = opened.descriptor;
  if (descriptor == nullptr) return plugin_error(who + ": entry symbol of " + library + " returned no descriptor");
  if (descriptor->abi_version != kPluginAbiVersion) {
    return plugin_error(who + ": ABI version mismatch in " + library + ": got " +
                        std::to_string(descriptor->abi_version) + ", expected " + std::to_string(kPluginAbiVersion) +
                        " (rebuild the plugin against this GE)");
  }
  if (Status compatible = check_build_compatibility(*descriptor); !compatible.is_ok()) {
    return plugin_error(who + ": " + library + " " + compatible.message());
  }
  // The entry's name is what other entries, .gem files and messages refer to: a
  // registry that calls the library by another name would mislabel all of them.
  const std::string descriptor_name = descriptor->name != nullptr ? descriptor->name : "";
  if (descriptor_name != record.name) {
    return plugin_error(who + ": library " + library + " is the plugin '" + descriptor_name +
                        "' (the name in its descriptor), not '" + record.name + "': name the registry entry '" +
                        descriptor_name + "'");
  }
  return opened;
}

/// Calls the plugin's register function; an exception it throws is its failure.
Status call_register(const GePluginDescriptor& descriptor, PendingRegistrar& registrar, const std::string& who) {
  Status registered;
  try {
    registered = descriptor.register_components(registrar);
  } catch (const std::exception& error) {
    registered = plugin_error(std::string("threw an exception: ") + error.what());
  } catch (...) {
    registered = plugin_error("threw a non-standard exception");
  }
  if (!registered.is_ok()) return plugin_error(who + ": registration failed: " + registered.message());
  return Status::ok();
}

}  // namespace

void PluginHost::set_plugin_option(const std::string& plugin, const std::string& key, PluginOptions::Value value) {
  impl_->option_overrides[plugin].set(key, std::move(value));
}

Status PluginHost::check_plugin_options_applied() const {
  for (const auto& override : impl_->option_overrides) {
    const std::string& plugin = override.first;  // not a structured binding: clang 14 captures none
    const PluginOptions& options = override.second;
    if (std::any_of(records_.begin(), records_.end(), [&](const PluginRecord& r) { return r.name == plugin; })) continue;
    std::string names;
    for (const PluginRecord& record : records_) names += (names.empty() ? "" : ", ") + record.name;
    return not_found("setting " + plugin + "." + options.values().begin()->first +
                     ": no registry defines a plugin named '" + plugin + "' (the plugins: " + names + ")");
  }
  return Status::ok();
}

Status PluginHost::load_registry(const std::filesystem::path& registry_file) {
  Result<std::string> text = read_registry_file(registry_file);
  if (!text.is_ok()) {
    failures_.push_back(text.status());
    return text.status();
  }
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(registry_file, ec);
  if (!impl_->loaded_registries.insert(canonical).second) return Status::ok();  // listed twice
  registry_files_.push_back(registry_file);

  detail::RegistryText parsed = detail::parse_registry(*text, registry_file);
  Status first_error;
  auto fail = [&](Status s) {
    failures_.push_back(s);
    if (first_error.is_ok()) first_error = s;
  };
  for (Status& failure : parsed.failures) fail(std::move(failure));
  for (detail::RegistryEntry& entry : parsed.entries) {
    PluginRecord record = std::move(entry.record);
    if (auto overrides = impl_->option_overrides.find(record.name); overrides != impl_->option_overrides.end()) {
      for (const auto& [key, value] : overrides->second.values()) entry.options.set(key, value);
    }
    Status loaded = entry.failure.is_ok() ? load_entry(record, entry.options, registry_file) : entry.failure;
    if (!loaded.is_ok()) {
      record.status = loaded;
      fail(std::move(loaded));
    }
    records_.push_back(std::move(record));
  }
  compose_backends();
  return first_error;
}

Status PluginHost::load_entry(PluginRecord& record, const PluginOptions& options,
                              const std::filesystem::path& registry_file) {
  const std::string who = where(registry_file, record.registry_line) + ": plugin '" + record.name + "'";
  // The name: the first registry to define it owns it.
  auto [owner_at, first] = impl_->plugin_names.emplace(
      record.name, Impl::NameOwner{registry_file, where(registry_file, record.registry_line), record.kind});
  if (!first) {
    const Impl::NameOwner& owner = owner_at->second;
    if (owner.registry == registry_file) {
      return plugin_error(who + ": duplicate plugin name (the [[plugin]] entry at " + owner.where +
                          " is already called '" + record.name + "')");
    }
    if (owner.kind != record.kind) {
      // Overriding by name replaces a plugin with one of its kind; another kind would
      // silently drop this one (a 'cpu' pass hiding the cpu backend).
      return plugin_error(who + " (a " + plugin_kind_name(record.kind) + ") is overridden by the " +
                          plugin_kind_name(owner.kind) + " plugin of that name at " + owner.where +
                          ", which would drop it: give the " + plugin_kind_name(owner.kind) +
                          " another name, or override with a " + plugin_kind_name(record.kind));
    }
    // Registries found earlier (--plugins, then GE_PLUGINS) override later ones by name.
    record.enabled = false;
    record.shadowed_by = owner.registry;
    return Status::ok();
  }
  if (!record.enabled) return Status::ok();

  GE_ASSIGN_OR_RETURN(OpenedPlugin opened, open_plugin(record, who));
  record.plugin_version = opened.descriptor->version ? opened.descriptor->version : "";
  if (opened.descriptor->register_components == nullptr) {
    return plugin_error(who + ": descriptor has no register function");
  }
  PendingRegistrar registrar(*this, record.kind, options);
  GE_RETURN_IF_ERROR(call_register(*opened.descriptor, registrar, who));

  // Committed only now: a plugin that fails leaves nothing behind.
  record.loaded = true;
  record.components = registrar.components;
  for (auto& p : registrar.parsers) impl_->parsers.push_back(std::move(p));
  for (auto& p : registrar.passes) impl_->passes.push_back(std::move(p));
  for (auto& p : registrar.memory_assigners) impl_->memory_assigners.push_back(std::move(p));
  for (auto& p : registrar.backends) impl_->plugin_backends.push_back(std::move(p));
  for (auto& p : registrar.op_libraries) impl_->op_libraries.push_back(std::move(p));
  for (auto& p : registrar.kernel_libraries) impl_->kernel_libraries.push_back(std::move(p));
  impl_->libraries.push_back(std::move(opened.library));
  GE_LOG_DEBUG("loaded plugin '{}' ({}) from {}", record.name, plugin_kind_name(record.kind), record.library.string());
  return Status::ok();
}

void PluginHost::compose_backends() {
  impl_->backends.clear();
  for (const auto& backend : impl_->plugin_backends) {
    std::vector<std::shared_ptr<const KernelLibrary>> libraries;
    for (const auto& library : impl_->kernel_libraries) {
      if (library->backend() == backend->name()) libraries.push_back(library);
    }
    impl_->backends.push_back(libraries.empty() ? backend
                                                : std::make_shared<KernelLibraryBackend>(backend, std::move(libraries)));
  }
}

const std::vector<std::shared_ptr<Parser>>& PluginHost::parsers() const { return impl_->parsers; }
const std::vector<PassInfo>& PluginHost::passes() const { return impl_->passes; }
const std::vector<std::shared_ptr<MemoryAssigner>>& PluginHost::memory_assigners() const { return impl_->memory_assigners; }
const std::vector<std::shared_ptr<Backend>>& PluginHost::backends() const { return impl_->backends; }
const std::vector<std::shared_ptr<const OpLibrary>>& PluginHost::op_libraries() const { return impl_->op_libraries; }
const std::vector<std::shared_ptr<const KernelLibrary>>& PluginHost::kernel_libraries() const {
  return impl_->kernel_libraries;
}

Result<Parser*> PluginHost::parser_for(const std::filesystem::path& path) const {
  const std::string extension = path.extension().string();
  for (const auto& parser : impl_->parsers) {
    for (const std::string& e : parser->extensions()) {
      if (e == extension) return parser.get();
    }
  }
  std::string known;
  for (const auto& parser : impl_->parsers) {
    for (const std::string& e : parser->extensions()) known += (known.empty() ? "" : ", ") + e;
  }
  return not_found("no parser plugin handles '" + path.string() + "' (extension '" + extension + "'; loaded parsers handle: " +
                   (known.empty() ? std::string("none — is a parser plugin in the registry?") : known) + ")");
}

Result<Backend*> PluginHost::backend(const std::string& name) const {
  std::string known;
  for (const auto& backend : impl_->backends) {
    if (backend->name() == name) return backend.get();
    known += (known.empty() ? "" : ", ") + backend->name();
  }
  return not_found("no backend named '" + name + "' (loaded backends: " + (known.empty() ? std::string("none") : known) + ")");
}

OpRegistry PluginHost::make_op_registry() const {
  OpRegistry registry;
  for (const auto& library : impl_->op_libraries) registry.add_library(library);
  return registry;
}

void PluginHost::describe_pass_pipeline(std::ostream& out) const {
  if (impl_->passes.empty()) return;
  out << "pass pipeline (by phase; inside a phase after/before, then registration order):\n";
  Result<std::vector<const PassInfo*>> ordered = order_passes(impl_->passes);
  if (!ordered.is_ok()) {
    out << "  FAILED    " << ordered.status().message() << "\n";
    return;
  }
  size_t width = 0;
  for (const PassInfo* pass : *ordered) width = std::max(width, pass->name.size());
  auto list = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
  };
  for (const PassInfo* pass : *ordered) {
    std::string line = std::string("  ") + pass_phase_name(pass->phase);
    line.resize(16, ' ');
    line += pass->name + std::string(width - pass->name.size(), ' ') + "  -O" + std::to_string(pass->min_opt_level);
    if (!pass->run_after.empty()) line += "  after " + list(pass->run_after);
    if (!pass->run_before.empty()) line += "  before " + list(pass->run_before);
    out << line << "\n";
  }
}

std::string PluginHost::describe() const {
  std::ostringstream out;
  if (registry_files_.empty()) out << "no plugin registry found (use --plugins FILE or GE_PLUGINS)\n";
  for (const auto& file : registry_files_) {
    out << "registry " << file.string() << "\n";
    for (const PluginRecord& r : records_) {
      if (r.registry_file != file) continue;
      out << "  " << (r.name.empty() ? "<unnamed>" : r.name) << " [" << plugin_kind_name(r.kind) << "] line "
          << r.registry_line << "\n";
      if (!r.library.empty()) out << "    library   " << r.library.string() << "\n";
      if (!r.shadowed_by.empty()) {
        out << "    overridden by the entry of the same name in " << r.shadowed_by.string() << "\n";
      } else if (!r.enabled) {
        out << "    disabled\n";
      } else if (r.loaded) {
        out << "    version   " << r.plugin_version << "\n";
        for (const std::string& c : r.components) out << "    registers " << c << "\n";
      } else {
        out << "    FAILED    " << r.status.message() << "\n";
      }
    }
  }
  describe_pass_pipeline(out);
  size_t entry_failures = 0;
  for (const PluginRecord& r : records_) entry_failures += r.status.is_ok() ? 0 : 1;
  if (failures_.size() > entry_failures) {
    out << "registry failures:\n";
    for (const Status& s : failures_) {
      bool is_entry = false;
      for (const PluginRecord& r : records_) is_entry = is_entry || (!r.status.is_ok() && r.status.message() == s.message());
      if (!is_entry) out << "  " << s.message() << "\n";
    }
  }
  return out.str();
}

}  // namespace ge
