// The capstone's kernel templates and tile configurations (capstone.hpp names the rung), for the
// dispatch rung's units that instantiate them in tiles of their own.
#pragma once

#include "ffma/capstone.hpp"

#define SGEMM_DEVICE_ONLY
#include "ffma/17_any_layout.cuh"
#undef SGEMM_DEVICE_ONLY
