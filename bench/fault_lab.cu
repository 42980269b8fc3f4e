#include "fault_lab.hpp"
namespace sgemm::fault_lab { int run(const harness::Options&) { return 2; } }
