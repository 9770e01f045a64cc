// A shared library that is not a GE plugin: it lacks the entry symbol.
extern "C" __attribute__((visibility("default"))) int not_a_ge_plugin() { return 42; }
