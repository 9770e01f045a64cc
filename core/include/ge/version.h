#pragma once
/// GE's version (the CMake project and package read it from here) and the build
/// fingerprint a plugin records: what must match between GE and a plugin for C++ objects
/// to cross the plugin boundary safely.

#include <cstddef>  // defines the standard library's configuration macros

#define GE_VERSION_MAJOR 0
#define GE_VERSION_MINOR 2
#define GE_VERSION_PATCH 0

#define GE_STRINGIFY_IMPL(x) #x
#define GE_STRINGIFY(x) GE_STRINGIFY_IMPL(x)

/// "0.2.0"
#define GE_VERSION_STRING \
  GE_STRINGIFY(GE_VERSION_MAJOR) "." GE_STRINGIFY(GE_VERSION_MINOR) "." GE_STRINGIFY(GE_VERSION_PATCH)

/// The C++ standard library and its ABI flavour, which decide the layout of std::string,
/// std::vector, std::shared_ptr... in the plugin interface: both sides must agree.
#if defined(_LIBCPP_VERSION)
#define GE_STDLIB_ABI "libc++ abi " GE_STRINGIFY(_LIBCPP_ABI_VERSION)
#elif defined(__GLIBCXX__)
#define GE_STDLIB_ABI "libstdc++ cxx11-abi " GE_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#else
#define GE_STDLIB_ABI "unknown standard library"
#endif

/// The compiler, for messages only (GCC and Clang share the Itanium C++ ABI).
#if defined(__clang__)
#define GE_COMPILER "clang " GE_STRINGIFY(__clang_major__) "." GE_STRINGIFY(__clang_minor__)
#elif defined(__GNUC__)
#define GE_COMPILER "gcc " GE_STRINGIFY(__GNUC__) "." GE_STRINGIFY(__GNUC_MINOR__)
#else
#define GE_COMPILER "unknown compiler"
#endif
