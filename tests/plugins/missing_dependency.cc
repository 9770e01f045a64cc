// Lives in a folder the loader does not search, so plugins linking it fail to load.
extern "C" __attribute__((visibility("default"))) int ge_test_missing_dependency_value() { return 7; }
