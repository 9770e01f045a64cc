// ge-backend-conformance: the kit's suite on any backend a registry names.
#include "ge/backend_conformance/backend_conformance.h"

int main(int argc, char** argv) { return ge::backend_conformance::run_main(argc, argv); }
