// One table per area; registry.cpp joins them in report order.
#pragma once

#include <vector>

#include "rules/rule.h"

namespace tfrig::rules {

std::vector<Rule> gpu_rules();
std::vector<Rule> gpu_health_rules();  // gpu_health.cpp: Xid events, lost GPUs
std::vector<Rule> driver_rules();
std::vector<Rule> cuda_stack_rules();
std::vector<Rule> tensorflow_rules();
std::vector<Rule> cpu_rules();
std::vector<Rule> memory_rules();
std::vector<Rule> storage_rules();
std::vector<Rule> hardware_rules();
std::vector<Rule> os_rules();
std::vector<Rule> region_rules();  // region.cpp: a machine set up for mainland China
std::vector<Rule> container_rules();
std::vector<Rule> tuning_rules();

}  // namespace tfrig::rules
