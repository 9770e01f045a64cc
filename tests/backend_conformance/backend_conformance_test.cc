// The backend conformance kit on GE's own backends, instantiated the way a vendor does
// (sdk/backend_conformance): the reference registry is the build's bin/ge_plugins.toml,
// found beside libge_core.
#include <ge/backend_conformance/backend_conformance.h>

GE_BACKEND_CONFORMANCE(Cpu, {.backend = "cpu"});
GE_BACKEND_CONFORMANCE(NpuSim, {.backend = "npu_sim"});
