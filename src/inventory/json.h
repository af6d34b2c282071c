// Inventory <-> JSON. One serialiser for doctor --format json, snapshots and
// every later report, so the formats cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>

#include "inventory/inventory.h"
#include "inventory/json_fields.h"
#include "inventory/json_optional.h"

namespace tfrig::inventory {

void to_json(nlohmann::json& j, const HostInfo& v);
void from_json(const nlohmann::json& j, HostInfo& v);
void to_json(nlohmann::json& j, const ConfiguredSource& v);
void from_json(const nlohmann::json& j, ConfiguredSource& v);
void to_json(nlohmann::json& j, const RegionInfo& v);
void from_json(const nlohmann::json& j, RegionInfo& v);
void to_json(nlohmann::json& j, const NumaNode& v);
void from_json(const nlohmann::json& j, NumaNode& v);
void to_json(nlohmann::json& j, const CpuFlags& v);
void from_json(const nlohmann::json& j, CpuFlags& v);
void to_json(nlohmann::json& j, const CpuInfo& v);
void from_json(const nlohmann::json& j, CpuInfo& v);
void to_json(nlohmann::json& j, const MemoryInfo& v);
void from_json(const nlohmann::json& j, MemoryInfo& v);
void to_json(nlohmann::json& j, const BlockDevice& v);
void from_json(const nlohmann::json& j, BlockDevice& v);
void to_json(nlohmann::json& j, const Mount& v);
void from_json(const nlohmann::json& j, Mount& v);
void to_json(nlohmann::json& j, const DataPath& v);
void from_json(const nlohmann::json& j, DataPath& v);
void to_json(nlohmann::json& j, const StorageInfo& v);
void from_json(const nlohmann::json& j, StorageInfo& v);
void to_json(nlohmann::json& j, const PciDevice& v);
void from_json(const nlohmann::json& j, PciDevice& v);
void to_json(nlohmann::json& j, const PciInfo& v);
void from_json(const nlohmann::json& j, PciInfo& v);
void to_json(nlohmann::json& j, const Limit& v);
void from_json(const nlohmann::json& j, Limit& v);
void to_json(nlohmann::json& j, const LimitsConfEntry& v);
void from_json(const nlohmann::json& j, LimitsConfEntry& v);
void to_json(nlohmann::json& j, const LimitsInfo& v);
void from_json(const nlohmann::json& j, LimitsInfo& v);
void to_json(nlohmann::json& j, const NvLink& v);
void from_json(const nlohmann::json& j, NvLink& v);
void to_json(nlohmann::json& j, const Gpu& v);
void from_json(const nlohmann::json& j, Gpu& v);
void to_json(nlohmann::json& j, const GpuPair& v);
void from_json(const nlohmann::json& j, GpuPair& v);
void to_json(nlohmann::json& j, const DeviceNode& v);
void from_json(const nlohmann::json& j, DeviceNode& v);
void to_json(nlohmann::json& j, const NvmlStatus& v);
void from_json(const nlohmann::json& j, NvmlStatus& v);
void to_json(nlohmann::json& j, const XidEvent& v);
void from_json(const nlohmann::json& j, XidEvent& v);
void to_json(nlohmann::json& j, const DriverInfo& v);
void from_json(const nlohmann::json& j, DriverInfo& v);
void to_json(nlohmann::json& j, const CudaLibrary& v);
void from_json(const nlohmann::json& j, CudaLibrary& v);
void to_json(nlohmann::json& j, const CudaToolkit& v);
void from_json(const nlohmann::json& j, CudaToolkit& v);
void to_json(nlohmann::json& j, const CudaInfo& v);
void from_json(const nlohmann::json& j, CudaInfo& v);
void to_json(nlohmann::json& j, const PackageVersion& v);
void from_json(const nlohmann::json& j, PackageVersion& v);
void to_json(nlohmann::json& j, const TensorFlowInstall& v);
void from_json(const nlohmann::json& j, TensorFlowInstall& v);
void to_json(nlohmann::json& j, const PythonEnvironment& v);
void from_json(const nlohmann::json& j, PythonEnvironment& v);
void to_json(nlohmann::json& j, const PythonInfo& v);
void from_json(const nlohmann::json& j, PythonInfo& v);
void to_json(nlohmann::json& j, const ContainerInfo& v);
void from_json(const nlohmann::json& j, ContainerInfo& v);
void to_json(nlohmann::json& j, const Inventory& v);
void from_json(const nlohmann::json& j, Inventory& v);

// A value the probes store as a fixed English word ("none", "unknown",
// "unknown hypervisor") in the reader's language; anything else (a
// hypervisor's or an OS's name) is data and comes back as it is.
std::string fact_word(const std::string& stored);

}  // namespace tfrig::inventory
