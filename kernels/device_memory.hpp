// The GPU's side of the memory budget: its free memory, the budget a tool's device plan is
// checked against (lib/mm/tool_io.hpp, ToolPlan), and whether an operation will run there.
#pragma once

#include <cstdint>
#include <string>

#include "device.hpp"
#include "impl.hpp"

namespace mm {

// Free memory of the first GPU in bytes (cudaMemGetInfo). Throws DeviceError without one.
std::int64_t cuda_free_memory();

// The budget of a tool's device plan: -1 (no device check) on the CPU; on the GPU its free
// memory, capped by MAX_MEMORY when that is >= 0 (--max-memory given caps the device too).
std::int64_t device_budget(Device device, std::int64_t max_memory);

// Whether pick_impl(LIST, _, NAME, DEVICE) will choose a GPU implementation, as far as it is
// known before the value and index types are: the named one's device, else whether LIST has a
// product implementation for DEVICE == cuda.
template <class Make>
bool runs_on_cuda(const ImplList<Make>& list, const std::string& name, Device device) {
  if (device != Device::cuda) return false;
  for (const auto& i : list)
    if (!name.empty() && i.name == name) return i.device == Device::cuda;
  for (const auto& i : list)
    if (i.device == Device::cuda && !i.experimental()) return true;
  return false;
}

}  // namespace mm
