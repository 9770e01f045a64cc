#include "session_flags.h"

#include <algorithm>

#include "ge/memory_limit.h"
#include "option_values.h"

namespace ge::tools {
namespace {

Status non_empty(const std::string& value, std::string_view option, std::string_view what) {
  if (value.empty()) return invalid_argument(std::string(option) + " expects " + std::string(what));
  return Status::ok();
}

const std::vector<SharedOption> kOptions = {
    {"--plugins", kPluginFlags, true, false, "FILE  load the plugins a registry file lists (repeatable)",
     [](SessionFlags& f, const std::string& v) {
       GE_RETURN_IF_ERROR(non_empty(v, "--plugins", "a registry file"));
       f.plugin_files.emplace_back(v);
       return Status::ok();
     }},
    {"--plugin-option", kPluginFlags, true, false,
     "PLUGIN.KEY=VALUE  a plugin's setting over its registry entry's [PLUGIN.options] (repeatable; e.g. "
     "cpu.winograd=false, cpu.kernel_providers=[dnnl,reference])",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(PluginSetting setting, parse_plugin_setting("--plugin-option", v));
       f.plugin_settings.push_back(std::move(setting));
       return Status::ok();
     }},
    {"--backend", kPluginFlags, true, false, "NAME  the backend to compile for and run on (default cpu)",
     [](SessionFlags& f, const std::string& v) {
       GE_RETURN_IF_ERROR(non_empty(v, "--backend", "a backend name"));
       f.backend = v;
       f.backend_given = true;
       return Status::ok();
     }},
    {"--verbose", kPluginFlags, false, false, "  -v: more output (repeatable: -vv)",
     [](SessionFlags& f, const std::string&) {
       ++f.verbosity;
       return Status::ok();
     }},
    {"-O", kPassFlags, true, true, "N  the pass pipeline of level N, 0-3 (default 2)",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(f.passes.opt_level, parse_int_value("-O", v, 0, 3));
       return Status::ok();
     }},
    {"--passes", kPassFlags, true, true, "a,b,c  exactly these passes, in this order",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(std::vector<std::string> names, parse_pass_list("--passes", v));
       if (!f.passes.explicit_passes) f.passes.explicit_passes.emplace();
       f.passes.explicit_passes->insert(f.passes.explicit_passes->end(), names.begin(), names.end());
       return Status::ok();
     }},
    {"--disable-pass", kPassFlags, true, true, "NAME  leave this pass out (repeatable)",
     [](SessionFlags& f, const std::string& v) {
       GE_RETURN_IF_ERROR(non_empty(v, "--disable-pass", "a pass name"));
       f.passes.disabled_passes.insert(v);
       return Status::ok();
     }},
    {"--verify-each", kPassFlags, false, true, "  verify the graph after every pass",
     [](SessionFlags& f, const std::string&) {
       f.passes.verify_each = true;
       return Status::ok();
     }},
    {"--check-passes", kPassFlags, false, true,
     "  run the graph on the cpu reference before the passes and after each one that changes it",
     [](SessionFlags& f, const std::string&) {
       f.passes.check_passes = true;
       return Status::ok();
     }},
    {"--check-rtol", kPassFlags, true, false, "R  --check-passes' relative tolerance",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(f.passes.check_rtol, parse_non_negative("--check-rtol", v));
       return Status::ok();
     }},
    {"--check-atol", kPassFlags, true, false, "A  --check-passes' absolute tolerance",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(f.passes.check_atol, parse_non_negative("--check-atol", v));
       return Status::ok();
     }},
    {"--dump-graph", kDumpFlags, true, true, "DIR  the graph as text IR and DOT after every pass",
     [](SessionFlags& f, const std::string& v) {
       GE_RETURN_IF_ERROR(non_empty(v, "--dump-graph", "a directory"));
       f.passes.dump_dir = v;
       return Status::ok();
     }},
    {"--dump-graph-constants", kDumpFlags, false, true, "  the dumps print every constant in full",
     [](SessionFlags& f, const std::string&) {
       f.passes.dump_print.max_constant_elements.reset();
       return Status::ok();
     }},
    {"--memory-assigner", kCompileFlags, true, true, "NAME  plan memory with this assigner (repeatable)",
     [](SessionFlags& f, const std::string& v) {
       GE_RETURN_IF_ERROR(non_empty(v, "--memory-assigner", "an assigner name"));
       f.memory_assigners.push_back(v);
       return Status::ok();
     }},
    {"--streams", kCompileFlags, true, true, "N  independent branches on up to N streams (1-64)",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(f.streams, parse_int_value("--streams", v, 1, 64));
       return Status::ok();
     }},
    {"--stream-memory-ratio", kCompileFlags, true, true,
     "R  the streams' feature map at most R times one stream's (default 1.1; 0: no limit)",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(f.stream_memory_ratio, parse_non_negative("--stream-memory-ratio", v));
       return Status::ok();
     }},
    {"--precision", kCompileFlags, true, false, "fp32|bf16|mixed  what the heavy float32 ops compute in",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(f.precision, parse_precision_value("--precision", v));
       return Status::ok();
     }},
    {"--threads", kCompileFlags, true, false, "N  threads per kernel (1-1024; default: the backend's)",
     [](SessionFlags& f, const std::string& v) {
       GE_ASSIGN_OR_RETURN(f.threads, parse_int_value("--threads", v, 1, 1024));
       return Status::ok();
     }},
    {"--memory-limit", kCompileFlags, true, false,
     "BYTES  the most the model may hold (suffixes K, M, G, T; default: physical memory)",
     [](SessionFlags& f, const std::string& v) {
       Result<size_t> bytes = parse_byte_size(v);
       if (!bytes.is_ok()) return bytes.status().with_context("--memory-limit");
       f.memory_limit = *bytes;
       return Status::ok();
     }},
};

}  // namespace

bool SessionFlags::was_given(std::string_view name) const {
  return std::find(given.begin(), given.end(), name) != given.end();
}

SessionOptions SessionFlags::session_options() const {
  SessionOptions options;
  options.backend = backend;
  options.passes = passes;
  options.memory_limit = memory_limit;
  options.memory_assigners = memory_assigners;
  options.threads = threads;
  options.max_streams = streams;
  options.stream_memory_ratio = stream_memory_ratio;
  options.precision = precision.value_or(Precision::kFp32);
  return options;
}

const std::vector<SharedOption>& shared_options() { return kOptions; }

Result<std::string> shared_option_value(const std::vector<std::string>& args, size_t& i, const std::string& option,
                                        const std::optional<std::string>& attached) {
  if (attached) return *attached;
  if (i + 1 >= args.size()) return invalid_argument("option " + option + " expects a value");
  const std::string& next = args[i + 1];
  if (next.size() > 2 && next.rfind("--", 0) == 0) {
    return invalid_argument("option " + option + " expects a value, got option '" + next + "'");
  }
  ++i;
  return next;
}

const SharedOption* find_shared_option(std::string_view name, uint32_t groups) {
  for (const SharedOption& option : kOptions) {
    if (option.name == name && (option.group & groups) != 0) return &option;
  }
  return nullptr;
}

Result<bool> take_shared_option(const std::vector<std::string>& args, size_t& i, uint32_t groups,
                                SessionFlags& flags) {
  const std::string& arg = args[i];
  std::string name = arg;
  std::optional<std::string> inline_value;
  if ((groups & kPluginFlags) != 0 && arg.size() >= 2 && arg[0] == '-' && arg[1] == 'v' &&
      arg.find_first_not_of('v', 1) == std::string::npos) {
    // -v, -vv, -vvv: one level each.
    flags.verbosity += static_cast<int>(arg.size()) - 1;
    flags.given.push_back("--verbose");
    return true;
  }
  if (arg.rfind("-O", 0) == 0 && arg.size() > 2) {
    name = "-O";
    inline_value = arg.substr(arg[2] == '=' ? 3 : 2);
  } else if (arg.rfind("--", 0) == 0) {
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
  }
  const SharedOption* option = find_shared_option(name, groups);
  if (option == nullptr) return false;
  std::string value;
  if (option->takes_value) {
    GE_ASSIGN_OR_RETURN(value, shared_option_value(args, i, name, inline_value));
  } else if (inline_value) {
    return invalid_argument("option " + name + " takes no value, got '" + arg + "'");
  }
  GE_RETURN_IF_ERROR(option->apply(flags, value));
  flags.given.push_back(name);
  return true;
}

std::string shared_options_help(uint32_t groups) {
  std::string text;
  for (const SharedOption& option : kOptions) {
    if ((option.group & groups) == 0) continue;
    const std::string_view help = option.help;
    const size_t gap = help.find("  ");
    const std::string head = std::string(option.name) + (gap == 0 ? "" : " " + std::string(help.substr(0, gap)));
    text += "  " + head + std::string(head.size() < 28 ? 28 - head.size() : 1, ' ') +
            std::string(gap == std::string_view::npos ? help : help.substr(gap + 2)) + "\n";
  }
  return text;
}

}  // namespace ge::tools
