// gpulib/nvml_entry_points.h, written by hand from NVIDIA's NVML API
// Reference, against NVIDIA's own nvml.h when a CUDA toolkit is installed
// (every row's newest name: its ABI shape; the structs tfrig passes: size and
// field offsets; the return codes and buffer sizes). Without the header those
// checks skip; the table's own rules are checked everywhere.
#include "gpulib/nvml.h"
#include "gpulib/nvml_entry_points.h"
#include "abi_shape.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <regex>
#include <set>
#include <string>
#include <vector>

#if defined(TFRIG_HAVE_NVML_HEADERS)
// Declares the unversioned entry points as themselves rather than as macros
// naming the newest version (nvml.h's own switch).
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <nvml.h>
#endif

namespace tfrig::gpulib::nvml {
namespace {

struct Row {
  std::string member;
  bool required;
  std::vector<std::string> names;
};

std::vector<Row> table() {
  std::vector<Row> rows;
#define TFRIG_NVML_ROW(member, required, signature, ...) rows.push_back({#member, required, {TFRIG_NVML_NAMES(__VA_ARGS__)}});
  TFRIG_NVML_ENTRY_POINTS(TFRIG_NVML_ROW)
#undef TFRIG_NVML_ROW
  return rows;
}

int version_of(const std::string& name) {
  static const std::regex versioned(".*_v([0-9]+)");
  std::smatch m;
  return std::regex_match(name, m, versioned) ? std::stoi(m[1]) : 1;
}

TEST(NvmlEntryPoints, EachNameOnceNewestFirst) {
  const auto rows = table();
  ASSERT_GT(rows.size(), 40u);
  std::set<std::string> members, names;
  for (const auto& r : rows) {
    EXPECT_TRUE(members.insert(r.member).second) << r.member << " twice";
    ASSERT_FALSE(r.names.empty()) << r.member;
    for (size_t i = 0; i < r.names.size(); ++i) {
      EXPECT_EQ(r.names[i].rfind("nvml", 0), 0u) << r.names[i];
      EXPECT_TRUE(names.insert(r.names[i]).second) << r.names[i] << " in two rows";
      // Fallbacks are older versions of the same call, or (power limit) an
      // older call; never a newer version after an older one.
      if (i > 0 && r.names[i].rfind(r.names[0].substr(0, r.names[0].find("_v")), 0) == 0) {
        EXPECT_LT(version_of(r.names[i]), version_of(r.names[i - 1])) << r.member;
      }
    }
  }
  // Without these nothing can be listed: the load fails naming them.
  for (const char* m : {"init", "shutdown", "error_string", "device_count", "handle_by_index", "system_driver_version"}) {
    bool required = false;
    for (const auto& r : rows) required |= r.member == m && r.required;
    EXPECT_TRUE(required) << m;
  }
}

#if defined(TFRIG_HAVE_NVML_HEADERS)

using test::same_shape;

#define TFRIG_NVML_CHECK(member, required, signature, ...)                                                       \
  static_assert(same_shape<decltype(&::TFRIG_NVML_NEWEST(__VA_ARGS__)), TFRIG_NVML_POINTER(signature)>, #member \
                " does not match nvml.h");
TFRIG_NVML_ENTRY_POINTS(TFRIG_NVML_CHECK)
#undef TFRIG_NVML_CHECK

static_assert(sizeof(PciInfo) == sizeof(::nvmlPciInfo_t));
static_assert(offsetof(PciInfo, domain) == offsetof(::nvmlPciInfo_t, domain));
static_assert(offsetof(PciInfo, pci_device_id) == offsetof(::nvmlPciInfo_t, pciDeviceId));
static_assert(offsetof(PciInfo, bus_id) == offsetof(::nvmlPciInfo_t, busId));
static_assert(sizeof(Memory) == sizeof(::nvmlMemory_t));
static_assert(offsetof(Memory, used) == offsetof(::nvmlMemory_t, used));
static_assert(sizeof(MemoryV2) == sizeof(::nvmlMemory_v2_t));
static_assert(offsetof(MemoryV2, used) == offsetof(::nvmlMemory_v2_t, used));
static_assert(kMemoryV2Version == ::nvmlMemory_v2);
static_assert(sizeof(ProcessInfoV1) == sizeof(::nvmlProcessInfo_v1_t));
static_assert(sizeof(ProcessInfoV2) == sizeof(::nvmlProcessInfo_v2_t));
static_assert(offsetof(ProcessInfoV2, compute_instance_id) == offsetof(::nvmlProcessInfo_v2_t, computeInstanceId));
static_assert(sizeof(Utilization) == sizeof(::nvmlUtilization_t));
static_assert(kSuccess == ::NVML_SUCCESS);
static_assert(kErrorNotSupported == ::NVML_ERROR_NOT_SUPPORTED);
static_assert(kErrorInsufficientSize == ::NVML_ERROR_INSUFFICIENT_SIZE);
static_assert(kErrorLibRmVersionMismatch == ::NVML_ERROR_LIB_RM_VERSION_MISMATCH);
static_assert(kErrorGpuNotFound == ::NVML_ERROR_GPU_NOT_FOUND);
static_assert(kVersionBufferSize == NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
static_assert(kNameBufferSize == NVML_DEVICE_NAME_V2_BUFFER_SIZE);
static_assert(kUuidBufferSize == NVML_DEVICE_UUID_V2_BUFFER_SIZE);
static_assert(kSerialBufferSize == NVML_DEVICE_SERIAL_BUFFER_SIZE);

TEST(NvmlDeclarations, MatchTheInstalledHeader) {
  // Everything is checked at compile time above; this records that it ran.
  SUCCEED() << "checked against nvml.h (NVML_API_VERSION " << NVML_API_VERSION << ")";
}

#else

TEST(NvmlDeclarations, MatchTheInstalledHeader) {
  GTEST_SKIP() << "no nvml.h (CUDA toolkit) found at configure time";
}

#endif

}  // namespace
}  // namespace tfrig::gpulib::nvml
