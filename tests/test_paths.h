// Where this build put the test data, the tfrig binary and the fake NVIDIA
// libraries. The paths are compiled into test_support.cpp alone, so every
// other test object is the same whichever folder the tree is built in and a
// compiler cache (ccache with base_dir) can share it between checkouts.
#pragma once

namespace tfrig::test::paths {
const char* test_data();
const char* binary();
const char* fake_nvml();
const char* fake_nvml_legacy();
const char* fake_nvml_nocount();
const char* fake_cuda();
}  // namespace tfrig::test::paths

#define TFRIG_TEST_DATA (::tfrig::test::paths::test_data())
#define TFRIG_BINARY (::tfrig::test::paths::binary())
#define TFRIG_FAKE_NVML (::tfrig::test::paths::fake_nvml())
#define TFRIG_FAKE_NVML_LEGACY (::tfrig::test::paths::fake_nvml_legacy())
#define TFRIG_FAKE_NVML_NOCOUNT (::tfrig::test::paths::fake_nvml_nocount())
#define TFRIG_FAKE_CUDA (::tfrig::test::paths::fake_cuda())
