#pragma once
#include "harness/cli.hpp"
namespace sgemm::fault_lab { int run(const harness::Options& o); }
