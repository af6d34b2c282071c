// The built-in models: CNNs built layer by layer from their papers' and Keras
// Applications' definitions; transformers by their published configurations.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "plan/model.h"

namespace tfrig::plan {

struct CatalogModel {
  std::string id;            // "resnet50"
  std::string display_name;  // "ResNet-50"
  std::vector<std::string> aliases;
  Family family = Family::kCnn;
  uint64_t published_params = 0;  // the cited total
  std::string params_source;
  int default_image_size = 0;
  int default_seq_len = 0;
  std::optional<TransformerConfig> transformer;
  std::string throughput_model;  // "resnet50", "bert_large"; empty = none measured
};

const std::vector<CatalogModel>& model_catalog();
const CatalogModel* find_model(std::string_view name);

// The workload of a catalog model at an input size (0 = the model's default).
core::Result<Workload> catalog_workload(const CatalogModel& model, int image_size, int seq_len);

// Layer lists of the CNNs at an input side (exposed for tests).
std::vector<Layer> build_resnet(int depth, int image_size);
std::vector<Layer> build_mobilenet_v2(int image_size);
std::vector<Layer> build_resnext101_32x4d(int image_size, bool squeeze_excite);
std::vector<Layer> build_vgg16(int image_size);
std::vector<Layer> build_inception_v3(int image_size);
std::vector<Layer> build_efficientnet(double width, double depth, int image_size);

// Parameter count of a transformer configuration (exposed for tests).
uint64_t transformer_params(const TransformerConfig& c, int max_positions);

// A transformer sized from a parameter count alone (--params N --family transformer).
TransformerConfig transformer_from_params(uint64_t params, int vocab);

}  // namespace tfrig::plan
