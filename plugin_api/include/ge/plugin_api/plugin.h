#pragma once
/// What a plugin library implements: the descriptor and Registrar of the core's
/// ge/plugin_api/plugin_descriptor.h, and GE_DEFINE_PLUGIN to export the entry symbol.

#include "ge/plugin_api/plugin_descriptor.h"
#include "ge/version.h"

/// Defines the entry symbol. Use once per library:
///   GE_DEFINE_PLUGIN("onnx", "1.0.0", register_onnx_parser)
/// The name must be the one the plugin's registry entry gives it.
#define GE_DEFINE_PLUGIN(plugin_name, plugin_version, register_fn)                  \
  extern "C" __attribute__((visibility("default"))) const GePluginDescriptor*      \
  ge_plugin_entry() {                                                              \
    static const GePluginDescriptor descriptor{::ge::kPluginAbiVersion, plugin_name, \
                                               plugin_version, register_fn,        \
                                               GE_VERSION_STRING, GE_STDLIB_ABI,    \
                                               GE_COMPILER};                        \
    return &descriptor;                                                            \
  }
