// The parts of a compat question a machine answers (driver, GPU, installed
// TensorFlow and Python, system CUDA and cuDNN): shared by `compat` and `explain`.
#pragma once

#include "inventory/inventory.h"
#include "knowledge/compat.h"

namespace tfrig::cli {

// Fills what is not set yet from the inventory.
void fill_compat_from_machine(knowledge::CompatQuery& q, const inventory::Inventory& inv);

}  // namespace tfrig::cli
