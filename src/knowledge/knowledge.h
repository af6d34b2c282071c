// The knowledge base: the published facts tfrig judges a machine against.
// TensorFlow's tested builds, the tensorflow[and-cuda] pins, CUDA -> minimum
// driver, the sonames TF dlopens, the compute capabilities TF wheels carry,
// a GPU catalog and the thresholds of the configuration guide (docs/guide.md). Every row keeps the id of its
// source and says when the fact is uncertain.
//
// The data lives in data/knowledge/*.json (docs/knowledge.md), is embedded
// into the binary at build time, and `--knowledge DIR` replaces any of the
// files by a newer copy.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/message.h"
#include "core/result.h"
#include "core/version.h"

namespace tfrig::knowledge {

struct SetupFacts;  // knowledge/setup_facts.h

struct SourceRef {
  std::string id;
  std::string url;  // or "repo:path@commit" when there is no URL
  std::string note;
};

// One data file as loaded: what `tfrig knowledge` prints.
struct DataFile {
  std::string name;  // "tf_builds.json"
  std::string schema;
  std::string data_version;  // the date or release of the newest fact in it
  std::string origin;        // "embedded" or the path it was read from
  size_t rows = 0;
  std::vector<SourceRef> sources;
};

// A row of TensorFlow's "Tested build configurations" (Linux GPU).
struct TfBuild {
  std::string tf;                   // "2.16.1"
  std::string package;              // "tensorflow", "tensorflow_gpu"
  std::vector<std::string> python;  // "3.9" .. "3.12"
  std::string cuda;                 // "12.3"
  std::string cudnn;                // "8.9"
  std::string compiler;
  std::string source;
  std::string python_min() const { return python.empty() ? "" : python.front(); }
  std::string python_max() const { return python.empty() ? "" : python.back(); }
  bool supports_python(const core::Version& v) const;
};

// The NVIDIA wheels `pip install tensorflow[and-cuda]==X` pins.
struct PipExtra {
  std::string tf;
  std::string confidence;  // "primary", "secondary", "" (not found)
  bool uncertain = true;
  std::string flavor;                                         // "cu11", "cu12"
  std::vector<std::pair<std::string, std::string>> packages;  // name, "==12.5.82"
  std::string source;
};

// The minimum driver for a CUDA version: a major with minor-version
// compatibility ("12": 525.60.13) or one 10.x minor.
struct DriverMinimum {
  std::string cuda;
  bool minor_version_compatibility = false;
  std::optional<std::string> min_linux;
  std::optional<std::string> min_windows;
  bool uncertain = false;
  std::string source;
  std::string note;
};

// CUDA toolkit release -> the driver it ships with (no minor-version compat).
struct ToolkitDriver {
  std::string cuda;     // "12.4.1"
  std::string release;  // "12.4 Update 1"
  std::string min_linux;
  std::optional<std::string> min_windows;
};

// The libraries one family of TF releases dlopens, by family ("cudnn").
struct LibraryFamily {
  std::vector<std::string> tf_versions;
  std::string cuda;
  std::string confidence;
  bool uncertain = true;
  std::vector<std::pair<std::string, std::string>> libraries;  // family, soname
  std::string soname(std::string_view family) const;
};

// Another kernel list an uncertain release may have been built with (2.15:
// two candidate .bazelrc values), with the condition under which it applies.
struct KernelList {
  std::vector<std::string> sass;
  std::vector<std::string> ptx;
  std::string applies_if;
};

// The compute capabilities official TF wheels carry code for.
struct TfCompute {
  std::vector<std::string> tf_versions;
  std::vector<std::string> sass;                  // "6.0": device code, runs on the same major, minor >= 0
  std::vector<std::string> ptx;                   // "9.0": JIT-compiled by the driver for any CC >= it
  std::optional<std::string> documented_minimum;  // when the list is unknown
  std::string confidence;
  bool uncertain = true;
  std::vector<KernelList> alternatives;  // uncertain rows: the other candidate lists
};

struct GpuSpec {
  std::string id;  // "a100-sxm4-80gb"
  std::string name;
  std::vector<std::string> aliases;  // as NVML prints the name
  std::vector<uint32_t> pci_device_ids;
  std::string architecture;
  std::optional<std::string> compute_capability;
  std::optional<double> vram_gib;
  std::optional<double> memory_bandwidth_gbs;
  std::optional<double> fp32_tflops;
  std::optional<double> fp16_tensor_tflops_dense;
  std::optional<double> bf16_tensor_tflops_dense;
  std::optional<double> tf32_tensor_tflops_dense;
  std::optional<double> int8_tops_dense;
  std::optional<bool> tensor_cores;
  std::optional<int> pcie_gen;
  std::optional<int> pcie_lanes;
  std::optional<bool> nvlink_supported;
  std::optional<double> nvlink_total_gbs;
  std::optional<bool> ecc;
  std::optional<double> tdp_w;
  std::optional<bool> mig_supported;
  std::optional<int> mig_max_instances;
  std::string segment;  // "datacenter", "consumer", "workstation"
  std::optional<int> launch_year;
  std::optional<double> launch_price_usd;
  std::string confidence;  // "high", "medium", "low"
  std::vector<std::string> unverified_fields;
  std::vector<std::string> sources;
};

// What find_gpu found: a catalog entry (with specifications) or only a row of
// NVIDIA's compute-capability table.
struct GpuMatch {
  const GpuSpec* spec = nullptr;
  std::string name;
  std::string architecture;
  std::optional<std::string> compute_capability;
  bool uncertain = false;
  std::string source;
};

// How a TF release runs on a GPU of a compute capability.
enum class KernelSupport {
  kSass,          // native device code: runs at full speed from the first step
  kPtxJit,        // only PTX: the driver JIT-compiles every kernel (first start 30 min+)
  kNone,          // no SASS and no usable PTX: "no kernel image is available"
  kBelowMinimum,  // below TF's minimum capability: the GPU is ignored
  kUnknown,       // the release's list is not known
};
std::string_view kernel_support_name(KernelSupport s);

struct KernelVerdict {
  KernelSupport support = KernelSupport::kUnknown;
  std::string detail;  // "sm_80 SASS", "PTX compute_90", ...
  bool uncertain = true;
  const TfCompute* row = nullptr;
  std::string targets;  // the list judged: "sm_50, sm_60, sm_70, sm_80, compute_90"
  // An uncertain row whose other candidate list gives another answer: that
  // answer, so a reader sees both (2.15 on CC 8.9: PTX JIT or sm_80 SASS).
  std::optional<KernelSupport> alternative;
  std::string alternative_detail;
  std::string alternative_targets;
  bool from_build_info = false;  // judged on the installed wheel's own list (authoritative)
  // detail and alternative_detail as message arguments (a message, or a
  // text without words: "sm_80 SASS"), rendered later (a rule's finding).
  core::MessageArg detail_message = std::string();
  core::MessageArg alternative_detail_message = std::string();
};

// The verdict for a list of kernel targets as build_info.py names them
// ("sm_80", "compute_90"): what an installed wheel carries, which settles what
// the knowledge base can only infer. nullopt when no entry parses.
std::optional<KernelVerdict> kernel_support_from_targets(const std::vector<std::string>& targets,
                                                         const core::Version& cc);
// How to read the compiled list on the machine (translated): the authority
// for every uncertain kernel fact.
std::string kernel_list_check_hint();
core::Message kernel_list_check_hint_message();

// How the rows of one source of plan_measurements.json were checked.
enum class Verification {
  kRawLogs,  // against the raw logs the published table was made from
  kScript,   // against the launch script that ran (flags, batch size)
  kReadme,   // against the README table (and, where named, its script)
  kNone,     // transcribed, not re-checked
};
std::string_view verification_name(Verification v);  // "raw_logs", "script", "readme", "none"

// A source of plan_measurements.json with how its rows were checked.
struct MeasurementSource {
  std::string id;
  std::string repo;    // "NVIDIA/DeepLearningExamples"
  std::string path;    // as in the repository (may begin with a space)
  std::string commit;  // full hash
  std::string url;
  // A GitHub issue or pull-request comment instead of a file at a commit
  // (docs/knowledge.md): thread "issues/67" or "pull/63" of repo, the
  // comment's anchor ("issuecomment-336838410", empty when none is known),
  // its author (the reporter: their own machine and run) and date, and the
  // quoted log line(s) holding the figures.
  std::string thread;
  std::string comment;
  std::string author;
  std::string date;
  std::string quote;
  bool is_thread() const { return !thread.empty(); }
  Verification verified = Verification::kNone;
  std::string verified_note;  // what was compared, when, with what result
  size_t rows_checked = 0;
  size_t rows_changed = 0;
  // Whether a row's "source" text (a URL or repo:path@commit) cites this source.
  // A thread source is cited by its thread URL with "#<comment>", or, without
  // an anchor, with "@<author>" in the note after it.
  bool cites(std::string_view row_source) const;
  bool verified_at_all() const { return verified != Verification::kNone; }
};
// The "sources" of a plan_measurements.json document, with their "verified"
// objects checked (a bad method or count is an error naming the source).
// Plan's own reader uses this too, so a --knowledge copy is judged the same way.
core::Result<std::vector<MeasurementSource>> parse_measurement_sources(const nlohmann::json& doc,
                                                                       const std::string& where);
// The source a row's "source" text cites; nullptr when none does.
const MeasurementSource* find_measurement_source(const std::vector<MeasurementSource>& sources,
                                                 std::string_view row_source);

// A threshold or policy number with its source.
struct Fact {
  nlohmann::json value;
  std::string source;
  bool uncertain = false;
  std::string note;
};

struct ArchitectureSupport {
  std::string name;
  int cc_major = 0;
  std::optional<int> last_driver_branch;
  std::optional<std::string> last_cuda_major;
  std::string source;
  bool uncertain = false;
};

class Knowledge {
 public:
  // The copy compiled into the binary.
  static core::Result<Knowledge> embedded();
  // The embedded copy with every *.json of dir replacing the file of the
  // same name (docs/knowledge.md: how to ship newer facts).
  static core::Result<Knowledge> with_overrides(const std::string& dir);
  // From texts by file name (tests); unknown names are ignored.
  static core::Result<Knowledge> from_texts(const std::map<std::string, std::string>& texts,
                                            const std::map<std::string, std::string>& origins = {});

  const std::vector<DataFile>& files() const { return files_; }
  const std::vector<SourceRef>& sources_of(std::string_view file) const;

  // ---- TensorFlow releases ----
  const std::vector<TfBuild>& tf_builds() const { return tf_builds_; }
  // The tested-build row for a release: same major.minor (2.16.2 -> the 2.16.1 row).
  const TfBuild* find_tf_build(const core::Version& tf) const;
  const TfBuild* newest_tf() const;
  const PipExtra* pip_extra_for(const core::Version& tf) const;
  const LibraryFamily* libraries_for(const core::Version& tf) const;
  // Libraries TF must dlopen before it registers a GPU (gpu_device.cc).
  const std::vector<std::string>& registration_libraries(const core::Version& tf) const;
  const TfCompute* compute_for(const core::Version& tf) const;
  KernelVerdict kernel_support(const core::Version& tf, const core::Version& cc) const;
  std::string tf_min_capability() const { return tf_min_capability_; }

  // ---- CUDA and the driver ----
  // The minimum Linux driver for software built with this CUDA version,
  // with minor-version compatibility where CUDA has it (11+).
  std::optional<DriverMinimum> min_driver_for_cuda(const core::Version& cuda) const;
  const std::vector<DriverMinimum>& driver_minimums() const { return driver_minimums_; }
  const std::vector<ToolkitDriver>& toolkit_drivers() const { return toolkit_drivers_; }
  // The newest CUDA major whose minor-compat minimum this driver meets.
  std::optional<std::string> newest_cuda_major_for_driver(const core::Version& driver) const;
  const ArchitectureSupport* architecture_support(int cc_major) const;

  // ---- GPUs ----
  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  // By marketing or NVML name ("Tesla K80", "NVIDIA A100-SXM4-80GB", "rtx 4090")
  // or PCI device id ("0x20b2", "10de:20b2").
  std::optional<GpuMatch> find_gpu(std::string_view name_or_id) const;
  std::optional<GpuMatch> find_gpu_by_pci_id(uint32_t device_id) const;

  // ---- published measurements (plan_measurements.json) ----
  const std::vector<MeasurementSource>& measurement_sources() const { return measurement_sources_; }
  // The source a row's "source" text cites; nullptr when none does.
  const MeasurementSource* measurement_source_for(std::string_view row_source) const;

  // ---- thresholds ----
  const Fact* fact(std::string_view key) const;
  double number(std::string_view key, double fallback) const;
  std::string text(std::string_view key, std::string fallback) const;

  // ---- what `tfrig setup` writes (setup.json) ----
  const SetupFacts& setup() const;

 private:
  // One parser per file (knowledge.cpp): each checks every version and number
  // of its rows, naming the file, row and field of a bad one, then fills its
  // own members below. from_texts runs them in turn.
  core::Status parse_tf_builds(const nlohmann::json& doc, const std::string& where, DataFile& file);
  core::Status parse_tf_pip_extras(const nlohmann::json& doc, const std::string& where, DataFile& file);
  core::Status parse_cuda_drivers(const nlohmann::json& doc, const std::string& where, DataFile& file);
  core::Status parse_tf_libraries(const nlohmann::json& doc, const std::string& where, DataFile& file);
  core::Status parse_tf_compute(const nlohmann::json& doc, const std::string& where, DataFile& file);
  core::Status parse_gpus(const nlohmann::json& doc, const std::string& where, DataFile& file);
  core::Status parse_thresholds(const nlohmann::json& doc, const std::string& where, DataFile& file);
  core::Status parse_setup(const nlohmann::json& doc, const std::string& where, DataFile& file);
  core::Status parse_plan_measurements(const nlohmann::json& doc, const std::string& where, DataFile& file);

  struct CcRow {
    std::vector<std::string> names;
    std::string architecture;
    std::string cc;
    std::string source;
    bool uncertain = false;
  };

  std::vector<DataFile> files_;
  std::vector<TfBuild> tf_builds_;
  std::vector<PipExtra> pip_extras_;
  std::vector<DriverMinimum> driver_minimums_;
  std::vector<ToolkitDriver> toolkit_drivers_;
  std::vector<LibraryFamily> library_families_;
  std::vector<std::string> gate_current_;
  std::vector<std::string> gate_before_2_14_;
  std::vector<TfCompute> compute_;
  std::string tf_min_capability_ = "3.5";
  // A listed release ("2.16", "2.16.1", "2.x") as release_matches reads it,
  // parsed once at load: compute_for and libraries_for run for every GPU of
  // every node under several rules in `tfrig fleet`, and parsing the lists
  // there was a tenth of its time (bench/RESULTS.md, fleet).
  struct ReleaseKey {
    bool valid = false;       // release_matches never matches an unparsable entry
    bool major_only = false;  // "2.x"
    uint64_t major = 0;
    uint64_t minor = 0;
  };
  struct ReleaseIndex {
    std::vector<std::vector<ReleaseKey>> rows;  // one list per row, in the rows' order
    std::optional<core::Version> newest;        // the last row's last release
    bool matches(size_t row, const core::Version& tf) const;
  };
  static ReleaseIndex index_releases(const std::vector<const std::vector<std::string>*>& rows);
  ReleaseIndex compute_releases_, library_releases_;
  std::optional<core::Version> tf_min_cc_ = core::Version::parse("3.5");
  std::vector<GpuSpec> gpus_;
  std::vector<CcRow> cc_rows_;
  // gpu_name_tokens of each GPU's name and aliases, of each row's names (made at load; find_gpu).
  std::vector<std::vector<std::vector<std::string>>> gpu_tokens_, cc_tokens_;
  std::map<std::string, Fact, std::less<>> facts_;
  std::vector<ArchitectureSupport> architectures_;
  std::vector<MeasurementSource> measurement_sources_;
  std::shared_ptr<const SetupFacts> setup_;
};

// The embedded knowledge, loaded once. A broken embedded file is a build bug
// (tests/knowledge/knowledge_test.cpp loads it), so this never fails at run time.
const Knowledge& builtin();

// The knowledge a command uses: the embedded copy, or with --knowledge DIR.
core::Result<Knowledge> load(const std::string& override_dir);

// "2.16.1" matches "2.16" and "2.16.x"; "1.x" matches any 1.y.
bool release_matches(std::string_view listed, const core::Version& tf);

// Normalised name tokens used for GPU matching ("NVIDIA GeForce RTX 4090" -> {rtx, 4090}).
std::vector<std::string> gpu_name_tokens(std::string_view name);

}  // namespace tfrig::knowledge
