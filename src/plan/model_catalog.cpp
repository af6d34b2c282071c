// The built-in model catalog. CNNs are built layer by layer following the
// Keras Applications definitions (keras/applications/resnet.py,
// mobilenet_v2.py, efficientnet.py), which follow their papers; the built
// parameter counts are checked against the published totals in the tests.
// Transformers are their published configurations.
#include "plan/model_catalog.h"

#include <algorithm>
#include <cmath>

#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::plan {

namespace {

uint64_t u(int64_t v) { return v < 0 ? 0 : static_cast<uint64_t>(v); }

// The layer type of a BatchNormalization without its scale (gamma): its
// parameters are 3 per channel, two of them (the moving statistics) frozen.
constexpr const char* kBatchNormNoScale = "BatchNormalization(scale=False)";

// Builds a CNN layer list, tracking the feature map shape. Padding is "same"
// throughout (output side = ceil(input / stride)), which gives the Keras
// Applications shapes at their default sizes (224 -> 112 -> 56 -> 28 -> 14 -> 7).
class Net {
 public:
  struct Shape {
    int64_t h = 1, w = 1, c = 1;
  };

  Net(int side, int channels) : s_{side, side, channels} { push("input", "InputLayer", LayerKind::kInput, 0, 0); }

  Shape shape() const { return s_; }
  void set_shape(Shape s) { s_ = s; }
  std::vector<Layer> take() { return std::move(layers_); }

  void preprocess(const std::string& name, const std::string& type, uint64_t params) {
    push(name, type, LayerKind::kPreprocess, params, 0);
  }
  // groups > 1: a grouped convolution (ResNeXt): each output channel sees cin / groups inputs.
  void conv(const std::string& name, int64_t filters, int64_t k, int64_t stride, bool bias, int64_t groups = 1) {
    const int64_t cin = s_.c / groups;
    s_.h = (s_.h + stride - 1) / stride;
    s_.w = (s_.w + stride - 1) / stride;
    s_.c = filters;
    push(name, "Conv2D", LayerKind::kConv, u(k * k * cin * filters + (bias ? filters : 0)),
         u(s_.h * s_.w * filters * k * k * cin));
    layers_.back().winograd = k == 3 && stride == 1 && groups == 1;
  }
  // A kh x kw convolution without bias; valid: no padding (Inception's stem
  // and reductions), output side = (input - kernel) / stride + 1.
  void conv_kxk(const std::string& name, int64_t filters, int64_t kh, int64_t kw, int64_t stride, bool valid) {
    const int64_t cin = s_.c;
    s_.h = valid ? (s_.h - kh) / stride + 1 : (s_.h + stride - 1) / stride;
    s_.w = valid ? (s_.w - kw) / stride + 1 : (s_.w + stride - 1) / stride;
    s_.c = filters;
    push(name, "Conv2D", LayerKind::kConv, u(kh * kw * cin * filters), u(s_.h * s_.w * filters * kh * kw * cin));
    layers_.back().winograd = kh == 3 && kw == 3 && stride == 1;
  }
  // Keras BatchNormalization(scale=False): beta, moving mean and variance.
  void bn_no_scale(const std::string& name) { push(name, kBatchNormNoScale, LayerKind::kBatchNorm, u(3 * s_.c), 0); }
  void pool_valid(const std::string& name, int64_t k, int64_t stride) {
    s_.h = (s_.h - k) / stride + 1;
    s_.w = (s_.w - k) / stride + 1;
    push(name, "MaxPooling2D", LayerKind::kPool, 0, 0);
  }
  void avg_pool_same(const std::string& name) { push(name, "AveragePooling2D", LayerKind::kPool, 0, 0); }
  void concat(const std::string& name, int64_t channels) {
    s_.c = channels;
    push(name, "Concatenate", LayerKind::kConcat, 0, 0);
  }
  void depthwise(const std::string& name, int64_t k, int64_t stride, bool bias) {
    s_.h = (s_.h + stride - 1) / stride;
    s_.w = (s_.w + stride - 1) / stride;
    push(name, "DepthwiseConv2D", LayerKind::kDepthwiseConv, u(k * k * s_.c + (bias ? s_.c : 0)),
         u(s_.h * s_.w * s_.c * k * k));
  }
  // Keras BatchNormalization: gamma, beta (trainable), moving mean and variance (not).
  void bn(const std::string& name) { push(name, "BatchNormalization", LayerKind::kBatchNorm, u(4 * s_.c), 0); }
  void relu(const std::string& name) { push(name, "ReLU", LayerKind::kRelu, 0, 0); }
  void act(const std::string& name) { push(name, "Activation", LayerKind::kActivation, 0, 0); }
  void add(const std::string& name) { push(name, "Add", LayerKind::kAdd, 0, 0); }
  void multiply(const std::string& name) { push(name, "Multiply", LayerKind::kMultiply, 0, 0); }
  void dropout(const std::string& name) { push(name, "Dropout", LayerKind::kDropout, 0, 0); }
  void pool(const std::string& name, int64_t stride) {
    s_.h = (s_.h + stride - 1) / stride;
    s_.w = (s_.w + stride - 1) / stride;
    push(name, "MaxPooling2D", LayerKind::kPool, 0, 0);
  }
  void global_pool(const std::string& name) {
    s_.h = 1;
    s_.w = 1;
    push(name, "GlobalAveragePooling2D", LayerKind::kGlobalPool, 0, 0);
  }
  void flatten(const std::string& name) { push(name, "Flatten", LayerKind::kView, 0, 0); }
  void dense(const std::string& name, int64_t units) {
    const int64_t in = s_.h * s_.w * s_.c;
    s_ = {1, 1, units};
    push(name, "Dense", LayerKind::kDense, u(in * units + units), u(in * units));
  }

 private:
  void push(const std::string& name, const std::string& type, LayerKind kind, uint64_t params, uint64_t macs) {
    layers_.push_back(Layer{name, type, kind, u(s_.h * s_.w * s_.c), params, macs, false});
  }
  Shape s_;
  std::vector<Layer> layers_;
};

}  // namespace

// He et al. 2016, "Deep Residual Learning for Image Recognition", Table 1;
// Keras Applications resnet.py (v1: stride on the first 1x1 conv of a
// stage, conv biases on, 1000-class head).
std::vector<Layer> build_resnet(int depth, int image_size) {
  const int blocks50[] = {3, 4, 6, 3};
  const int blocks101[] = {3, 4, 23, 3};
  const int blocks152[] = {3, 8, 36, 3};
  const int* blocks = depth == 152 ? blocks152 : depth == 101 ? blocks101 : blocks50;
  Net net(image_size, 3);
  net.conv("conv1_conv", 64, 7, 2, true);
  net.bn("conv1_bn");
  net.relu("conv1_relu");
  net.pool("pool1_pool", 2);
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t f = 64LL << stage;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::string p = "conv" + std::to_string(stage + 2) + "_block" + std::to_string(b + 1) + "_";
      const int64_t stride = (b == 0 && stage > 0) ? 2 : 1;
      const Net::Shape in = net.shape();
      if (b == 0) {  // projection shortcut
        net.conv(p + "0_conv", 4 * f, 1, stride, true);
        net.bn(p + "0_bn");
        net.set_shape(in);
      }
      net.conv(p + "1_conv", f, 1, stride, true);
      net.bn(p + "1_bn");
      net.relu(p + "1_relu");
      net.conv(p + "2_conv", f, 3, 1, true);
      net.bn(p + "2_bn");
      net.relu(p + "2_relu");
      net.conv(p + "3_conv", 4 * f, 1, 1, true);
      net.bn(p + "3_bn");
      net.add(p + "add");
      net.relu(p + "out");
    }
  }
  net.global_pool("avg_pool");
  net.dense("predictions", 1000);
  return net.take();
}

// Xie et al. 2017, "Aggregated Residual Transformations for Deep Neural
// Networks" (arXiv:1611.05431), Table 1 (32x4d: 32 groups of width 4 in the
// first stage, doubled per stage; blocks 3-4-23-3); with squeeze-and-excitation
// (Hu et al. 2018, arXiv:1709.01507: reduction 16, after the last BN of the
// residual branch). As NVIDIA DeepLearningExamples builds them for
// TensorFlow: stride on the 3x3 convolution (v1.5), no conv biases.
std::vector<Layer> build_resnext101_32x4d(int image_size, bool squeeze_excite) {
  const int blocks[] = {3, 4, 23, 3};
  Net net(image_size, 3);
  net.conv("conv1_conv", 64, 7, 2, false);
  net.bn("conv1_bn");
  net.relu("conv1_relu");
  net.pool("pool1_pool", 2);
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = 128LL << stage;  // 32 groups x 4 channels, doubled per stage
    const int64_t out = 256LL << stage;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::string p = "conv" + std::to_string(stage + 2) + "_block" + std::to_string(b + 1) + "_";
      const int64_t stride = (b == 0 && stage > 0) ? 2 : 1;
      const Net::Shape in = net.shape();
      if (b == 0) {  // projection shortcut
        net.conv(p + "0_conv", out, 1, stride, false);
        net.bn(p + "0_bn");
        net.set_shape(in);
      }
      net.conv(p + "1_conv", width, 1, 1, false);
      net.bn(p + "1_bn");
      net.relu(p + "1_relu");
      net.conv(p + "2_conv", width, 3, stride, false, 32);
      net.bn(p + "2_bn");
      net.relu(p + "2_relu");
      net.conv(p + "3_conv", out, 1, 1, false);
      net.bn(p + "3_bn");
      if (squeeze_excite) {
        const Net::Shape main = net.shape();
        net.global_pool(p + "se_squeeze");
        net.conv(p + "se_reduce", out / 16, 1, 1, true);
        net.relu(p + "se_relu");
        net.conv(p + "se_expand", out, 1, 1, true);
        net.act(p + "se_sigmoid");
        net.set_shape(main);
        net.multiply(p + "se_excite");
      }
      net.add(p + "add");
      net.relu(p + "out");
    }
  }
  net.global_pool("avg_pool");
  net.dense("predictions", 1000);
  return net.take();
}

// Simonyan & Zisserman 2015, "Very Deep Convolutional Networks for
// Large-Scale Image Recognition" (arXiv:1409.1556), Table 1 configuration D;
// Keras Applications vgg16.py (3x3 convolutions with biases, 2x2 max pools,
// two 4096-wide dense layers, 1000 classes).
std::vector<Layer> build_vgg16(int image_size) {
  const int convs[] = {2, 2, 3, 3, 3};
  Net net(image_size, 3);
  for (int stage = 0; stage < 5; ++stage) {
    const int64_t f = std::min<int64_t>(512, 64LL << stage);
    for (int i = 0; i < convs[stage]; ++i) {
      const std::string p = "block" + std::to_string(stage + 1) + "_conv" + std::to_string(i + 1);
      net.conv(p, f, 3, 1, true);
      net.relu(p + "_relu");
    }
    net.pool("block" + std::to_string(stage + 1) + "_pool", 2);
  }
  net.flatten("flatten");
  net.dense("fc1", 4096);
  net.relu("fc1_relu");
  net.dense("fc2", 4096);
  net.relu("fc2_relu");
  net.dense("predictions", 1000);
  return net.take();
}

namespace {

// Inception v3's building blocks on one Net: conv2d_bn (Conv2D without bias,
// BatchNormalization without scale, ReLU) numbered as Keras numbers them, and
// the branches that each start from the block's input.
class InceptionNet {
 public:
  explicit InceptionNet(int image_size) : net_(image_size, 3) {}
  Net& net() { return net_; }
  // conv2d_bn: returns the channels it outputs.
  int64_t cbr(int64_t filters, int64_t kh, int64_t kw, int64_t stride = 1, bool valid = false) {
    const std::string p = "conv2d_" + std::to_string(++id_);
    net_.conv_kxk(p, filters, kh, kw, stride, valid);
    net_.bn_no_scale(p + "_bn");
    net_.relu(p + "_relu");
    return net_.shape().c;
  }
  // The next branch starts again from the block's input.
  void from(Net::Shape s) { net_.set_shape(s); }

 private:
  Net net_;
  int id_ = 0;
};

// The stem: five convolutions and two max pools, 299 -> 35 x 35.
void inception_stem(InceptionNet& n) {
  n.cbr(32, 3, 3, 2, true);
  n.cbr(32, 3, 3, 1, true);
  n.cbr(64, 3, 3);
  n.net().pool_valid("max_pooling2d_1", 3, 2);
  n.cbr(80, 1, 1, 1, true);
  n.cbr(192, 3, 3, 1, true);
  n.net().pool_valid("max_pooling2d_2", 3, 2);
}

// mixed0-2 (35 x 35): 1x1, 1x1 -> 5x5, 1x1 -> 3x3 -> 3x3, avg pool -> 1x1.
void inception_35x35_blocks(InceptionNet& n) {
  for (int m = 0; m < 3; ++m) {
    const Net::Shape in = n.net().shape();
    int64_t c = n.cbr(64, 1, 1);
    n.from(in);
    n.cbr(48, 1, 1);
    c += n.cbr(64, 5, 5);
    n.from(in);
    n.cbr(64, 1, 1);
    n.cbr(96, 3, 3);
    c += n.cbr(96, 3, 3);
    n.from(in);
    n.net().avg_pool_same("average_pooling2d_" + std::to_string(m));
    c += n.cbr(m == 0 ? 32 : 64, 1, 1);
    n.net().concat("mixed" + std::to_string(m), c);
  }
}

// mixed3: reduction to 17 x 17.
void inception_reduce_to_17(InceptionNet& n) {
  const Net::Shape in = n.net().shape();
  int64_t c = n.cbr(384, 3, 3, 2, true);
  n.from(in);
  n.cbr(64, 1, 1);
  n.cbr(96, 3, 3);
  c += n.cbr(96, 3, 3, 2, true);
  n.from(in);
  n.net().pool_valid("max_pooling2d_3", 3, 2);
  c += in.c;
  n.net().concat("mixed3", c);
}

// mixed4-7 (17 x 17): factorised 7x7 as 1x7 and 7x1.
void inception_17x17_blocks(InceptionNet& n) {
  const int64_t widths[] = {128, 160, 160, 192};
  for (int m = 0; m < 4; ++m) {
    const int64_t f = widths[m];
    const Net::Shape in = n.net().shape();
    int64_t c = n.cbr(192, 1, 1);
    n.from(in);
    n.cbr(f, 1, 1);
    n.cbr(f, 1, 7);
    c += n.cbr(192, 7, 1);
    n.from(in);
    n.cbr(f, 1, 1);
    n.cbr(f, 7, 1);
    n.cbr(f, 1, 7);
    n.cbr(f, 7, 1);
    c += n.cbr(192, 1, 7);
    n.from(in);
    n.net().avg_pool_same("average_pooling2d_" + std::to_string(m + 3));
    c += n.cbr(192, 1, 1);
    n.net().concat("mixed" + std::to_string(m + 4), c);
  }
}

// mixed8: reduction to 8 x 8.
void inception_reduce_to_8(InceptionNet& n) {
  const Net::Shape in = n.net().shape();
  n.cbr(192, 1, 1);
  int64_t c = n.cbr(320, 3, 3, 2, true);
  n.from(in);
  n.cbr(192, 1, 1);
  n.cbr(192, 1, 7);
  n.cbr(192, 7, 1);
  c += n.cbr(192, 3, 3, 2, true);
  n.from(in);
  n.net().pool_valid("max_pooling2d_4", 3, 2);
  c += in.c;
  n.net().concat("mixed8", c);
}

// mixed9-10 (8 x 8): expanded filter banks, 1x3 and 3x1 side by side.
void inception_8x8_blocks(InceptionNet& n) {
  for (int m = 0; m < 2; ++m) {
    const Net::Shape in = n.net().shape();
    int64_t c = n.cbr(320, 1, 1);
    n.from(in);
    n.cbr(384, 1, 1);
    const Net::Shape b = n.net().shape();
    c += n.cbr(384, 1, 3);
    n.from(b);
    c += n.cbr(384, 3, 1);
    n.from(in);
    n.cbr(448, 1, 1);
    n.cbr(384, 3, 3);
    const Net::Shape d = n.net().shape();
    c += n.cbr(384, 1, 3);
    n.from(d);
    c += n.cbr(384, 3, 1);
    n.from(in);
    n.net().avg_pool_same("average_pooling2d_" + std::to_string(m + 7));
    c += n.cbr(192, 1, 1);
    n.net().concat("mixed" + std::to_string(m + 9), c);
  }
}

}  // namespace

// Szegedy et al. 2016, "Rethinking the Inception Architecture for Computer
// Vision" (arXiv:1512.00567), Table 1 and Figures 5-7; Keras Applications
// inception_v3.py (conv2d_bn: Conv2D without bias, BatchNormalization
// without scale, ReLU; 299 px; mixed0 .. mixed10; 1000-class head).
std::vector<Layer> build_inception_v3(int image_size) {
  InceptionNet n(image_size);
  inception_stem(n);
  inception_35x35_blocks(n);
  inception_reduce_to_17(n);
  inception_17x17_blocks(n);
  inception_reduce_to_8(n);
  inception_8x8_blocks(n);
  n.net().global_pool("avg_pool");
  n.net().dense("predictions", 1000);
  return n.net().take();
}

namespace {

int64_t make_divisible(double v, int64_t divisor) {
  int64_t nv =
      std::max<int64_t>(divisor, static_cast<int64_t>(v + static_cast<double>(divisor) / 2) / divisor * divisor);
  if (static_cast<double>(nv) < 0.9 * v) nv += divisor;
  return nv;
}

}  // namespace

// Sandler et al. 2018, "MobileNetV2: Inverted Residuals and Linear
// Bottlenecks", Table 2; Keras Applications mobilenet_v2.py (alpha 1.0,
// no conv biases, ReLU6).
std::vector<Layer> build_mobilenet_v2(int image_size) {
  Net net(image_size, 3);
  net.conv("Conv1", 32, 3, 2, false);
  net.bn("bn_Conv1");
  net.relu("Conv1_relu");
  struct Setting {
    int t, c, n, s;
  };
  const Setting settings[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                              {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int id = 0;
  for (const Setting& st : settings) {
    for (int i = 0; i < st.n; ++i, ++id) {
      const std::string p = id == 0 ? "expanded_conv_" : "block_" + std::to_string(id) + "_";
      const int64_t in_c = net.shape().c;
      const int64_t out_c = make_divisible(st.c, 8);
      const int stride = i == 0 ? st.s : 1;
      if (st.t != 1) {
        net.conv(p + "expand", in_c * st.t, 1, 1, false);
        net.bn(p + "expand_BN");
        net.relu(p + "expand_relu");
      }
      net.depthwise(p + "depthwise", 3, stride, false);
      net.bn(p + "depthwise_BN");
      net.relu(p + "depthwise_relu");
      net.conv(p + "project", out_c, 1, 1, false);
      net.bn(p + "project_BN");
      if (in_c == out_c && stride == 1) net.add(p + "add");
    }
  }
  net.conv("Conv_1", 1280, 1, 1, false);
  net.bn("Conv_1_bn");
  net.relu("out_relu");
  net.global_pool("global_average_pooling2d");
  net.dense("predictions", 1000);
  return net.take();
}

// Tan & Le 2019, "EfficientNet: Rethinking Model Scaling for Convolutional
// Neural Networks", Table 1 (B0) and the compound coefficients (B4: width
// 1.4, depth 1.8, 380 px); Keras Applications efficientnet.py
// (DEFAULT_BLOCKS_ARGS, round_filters with divisor 8, SE ratio 0.25, swish).
std::vector<Layer> build_efficientnet(double width, double depth, int image_size) {
  auto round_filters = [width](int64_t f) { return make_divisible(static_cast<double>(f) * width, 8); };
  Net net(image_size, 3);
  net.preprocess("rescaling", "Rescaling", 0);
  net.preprocess("normalization", "Normalization", 7);  // mean, variance (3 each), count
  net.conv("stem_conv", round_filters(32), 3, 2, false);
  net.bn("stem_bn");
  net.act("stem_activation");
  struct Args {
    int k, repeats, in, out, expand, stride;
  };
  const Args blocks[] = {{3, 1, 32, 16, 1, 1},  {3, 2, 16, 24, 6, 2},   {5, 2, 24, 40, 6, 2},  {3, 3, 40, 80, 6, 2},
                         {5, 3, 80, 112, 6, 1}, {5, 4, 112, 192, 6, 2}, {3, 1, 192, 320, 6, 1}};
  int bi = 0;
  for (const Args& a : blocks) {
    const int repeats = static_cast<int>(std::ceil(depth * a.repeats));
    for (int r = 0; r < repeats; ++r, ++bi) {
      const std::string p = "block" + std::to_string(bi) + "_";
      const int64_t fin = r == 0 ? round_filters(a.in) : round_filters(a.out);
      const int64_t fout = round_filters(a.out);
      const int stride = r == 0 ? a.stride : 1;
      const int64_t filters = fin * a.expand;
      if (a.expand != 1) {
        net.conv(p + "expand_conv", filters, 1, 1, false);
        net.bn(p + "expand_bn");
        net.act(p + "expand_activation");
      }
      net.depthwise(p + "dwconv", a.k, stride, false);
      net.bn(p + "bn");
      net.act(p + "activation");
      const Net::Shape main = net.shape();
      const int64_t se = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(fin) * 0.25));
      net.global_pool(p + "se_squeeze");
      net.conv(p + "se_reduce", se, 1, 1, true);
      net.conv(p + "se_expand", filters, 1, 1, true);
      net.set_shape(main);
      net.multiply(p + "se_excite");
      net.conv(p + "project_conv", fout, 1, 1, false);
      net.bn(p + "project_bn");
      if (stride == 1 && fin == fout) {
        net.dropout(p + "drop");
        net.add(p + "add");
      }
    }
  }
  net.conv("top_conv", round_filters(1280), 1, 1, false);
  net.bn("top_bn");
  net.act("top_activation");
  net.global_pool("avg_pool");
  net.dropout("top_dropout");
  net.dense("predictions", 1000);
  return net.take();
}

uint64_t transformer_params(const TransformerConfig& c, int max_positions) {
  const uint64_t h = u(c.hidden), L = u(c.layers), ff = u(c.ffn), v = u(c.vocab), P = u(max_positions);
  switch (c.kind) {
    case TransformerKind::kEncoder:
      // BERT (Devlin et al. 2019): token, position, segment embeddings + LN;
      // per layer QKV/out with biases, MLP with biases, two LNs; pooler.
      return v * h + P * h + 2 * h + 2 * h + L * (4 * h * h + 4 * h + 2 * h * ff + ff + h + 4 * h) + h * h + h;
    case TransformerKind::kDecoder:
      if (c.gated_mlp) {
        // Llama (Touvron et al. 2023): untied input/output embeddings,
        // bias-free attention, SwiGLU MLP (3 matrices), RMSNorm x2 + final.
        return 2 * v * h + L * (4 * h * h + 3 * h * ff + 2 * h) + h;
      }
      // GPT-2 (Radford et al. 2019): tied embeddings, learned positions.
      return v * h + P * h + L * (4 * h * h + 4 * h + 2 * h * ff + ff + h + 4 * h) + 2 * h;
    case TransformerKind::kEncoderDecoder: {
      // T5 (Raffel et al. 2020): shared embedding, bias-free layers, RMS
      // layer norms, 32 relative-position buckets per head in each stack.
      const uint64_t dl = u(c.decoder_layers);
      const uint64_t a = u(c.heads);
      return v * h + L * (4 * h * h + 2 * h * ff + 2 * h) + dl * (8 * h * h + 2 * h * ff + 3 * h) + 2 * 32 * a + 2 * h;
    }
    case TransformerKind::kVision: {
      // ViT (Dosovitskiy et al. 2021): patch projection, class token,
      // positions for (side/patch)^2 + 1 tokens, encoder, LN, 1000-class head.
      const uint64_t p = u(c.patch);
      return p * p * 3 * h + h + h + P * h + L * (4 * h * h + 4 * h + 2 * h * ff + ff + h + 4 * h) + 2 * h + h * 1000 +
             1000;
    }
  }
  return 0;
}

TransformerConfig transformer_from_params(uint64_t params, int vocab) {
  // A GPT-style decoder of N parameters: N ~ 12 L h^2 (Kaplan et al. 2020,
  // Table 1), with h = 64 L (GPT-2 small's aspect ratio: 768 / 12).
  TransformerConfig c;
  c.kind = TransformerKind::kDecoder;
  const double layers = std::cbrt(static_cast<double>(params) / (12.0 * 64.0 * 64.0));
  c.layers = std::max(1, static_cast<int>(std::lround(layers)));
  const double h = std::sqrt(static_cast<double>(params) / (12.0 * c.layers));
  c.hidden = std::max(64, static_cast<int>(std::lround(h / 64.0)) * 64);
  c.heads = c.hidden / 64;
  c.ffn = 4 * c.hidden;
  c.vocab = vocab;
  return c;
}

namespace {

void add_cnn(std::vector<CatalogModel>& m, std::string id, std::string display, std::vector<std::string> aliases,
             uint64_t params, std::string source, int side, std::string throughput) {
  CatalogModel x;
  x.id = std::move(id);
  x.display_name = std::move(display);
  x.aliases = std::move(aliases);
  x.family = Family::kCnn;
  x.published_params = params;
  x.params_source = std::move(source);
  x.default_image_size = side;
  x.throughput_model = std::move(throughput);
  m.push_back(std::move(x));
}

void add_transformer(std::vector<CatalogModel>& m, std::string id, std::string display,
                     std::vector<std::string> aliases, uint64_t params, std::string source, TransformerConfig c,
                     int seq, int side, std::string throughput) {
  CatalogModel x;
  x.id = std::move(id);
  x.display_name = std::move(display);
  x.aliases = std::move(aliases);
  x.family = Family::kTransformer;
  x.published_params = params;
  x.params_source = std::move(source);
  x.transformer = c;
  x.default_seq_len = seq;
  x.default_image_size = side;
  x.throughput_model = std::move(throughput);
  m.push_back(std::move(x));
}

// The CNNs: published parameter counts with their sources, default image sizes.
void add_cnn_models(std::vector<CatalogModel>& m) {
  // Totals as model.count_params() gives them for Keras Applications
  // (https://keras.io/api/applications/ lists 25.6M, 44.7M, 5.3M, 19.5M, 3.5M).
  add_cnn(
      m, "resnet50", "ResNet-50", {"resnet-50", "resnet_50"}, 25636712,
      // TRANSLATORS: citations of a model's parameter count: keep authors, titles, arXiv ids, tables and numbers; translate the words around them.
      N_("He et al. 2016 (arXiv:1512.03385); Keras Applications ResNet50: 25,636,712"), 224, "resnet50");
  add_cnn(m, "resnet101", "ResNet-101", {"resnet-101", "resnet_101"}, 44707176,
          N_("He et al. 2016 (arXiv:1512.03385); Keras Applications ResNet101: 44,707,176"), 224, "");
  add_cnn(m, "resnet152", "ResNet-152", {"resnet-152", "resnet_152"}, 60419944,
          N_("He et al. 2016 (arXiv:1512.03385); Keras Applications ResNet152: 60,419,944"), 224, "");
  add_cnn(
      m, "resnext101_32x4d", "ResNeXt-101 32x4d", {"resnext101-32x4d", "resnext101"}, 44315560,
      N_("Xie et al. 2017 (arXiv:1611.05431) Table 1 (32x4d); trainable 44,177,704 as timm resnext101_32x4d counts (44.18M), + BN moving statistics"),
      224, "");
  add_cnn(
      m, "se_resnext101_32x4d", "SE-ResNeXt-101 32x4d", {"se-resnext101-32x4d", "se_resnext101"}, 49093272,
      N_("Hu et al. 2018 (arXiv:1709.01507) Table 2: SE-ResNeXt-101 (32x4d) 49.0M; trainable 48,955,416 as timm seresnext101_32x4d counts (48.96M), + BN moving statistics"),
      224, "");
  add_cnn(m, "vgg16", "VGG-16", {"vgg-16", "vgg_16"}, 138357544,
          N_("Simonyan & Zisserman 2015 (arXiv:1409.1556) Table 2: 138M; Keras Applications VGG16: 138,357,544"), 224,
          "");
  add_cnn(m, "inception_v3", "Inception v3", {"inceptionv3", "inception-v3", "inception3"}, 23851784,
          N_("Szegedy et al. 2016 (arXiv:1512.00567); Keras Applications InceptionV3: 23,851,784"), 299, "");
  add_cnn(m, "efficientnet_b0", "EfficientNet-B0", {"efficientnetb0", "efficientnet-b0"}, 5330571,
          N_("Tan & Le 2019 (arXiv:1905.11946) Table 2: 5.3M; Keras Applications EfficientNetB0: 5,330,571"), 224, "");
  add_cnn(m, "efficientnet_b4", "EfficientNet-B4", {"efficientnetb4", "efficientnet-b4"}, 19466823,
          N_("Tan & Le 2019 (arXiv:1905.11946) Table 2: 19M; Keras Applications EfficientNetB4: 19,466,823"), 380, "");
  add_cnn(m, "mobilenet_v2", "MobileNetV2", {"mobilenetv2", "mobilenet-v2"}, 3538984,
          N_("Sandler et al. 2018 (arXiv:1801.04381) Table 4: 3.4M; Keras Applications MobileNetV2: 3,538,984"), 224,
          "");
}

// The transformers: their configurations, published counts, default lengths.
void add_transformer_models(std::vector<CatalogModel>& m) {
  TransformerConfig vit_b{TransformerKind::kVision, 12, 0, 768, 12, 3072, 0, true, false, 16};
  TransformerConfig vit_l{TransformerKind::kVision, 24, 0, 1024, 16, 4096, 0, true, false, 16};
  add_transformer(m, "vit_b16", "ViT-B/16", {"vit-b/16", "vit-b16", "vit_base"}, 86567656,
                  N_("Dosovitskiy et al. 2021 (arXiv:2010.11929) Table 1: 86M (12 layers, 768, MLP 3072, 12 heads)"),
                  vit_b, 0, 224, "");
  add_transformer(m, "vit_l16", "ViT-L/16", {"vit-l/16", "vit-l16", "vit_large"}, 304326632,
                  N_("Dosovitskiy et al. 2021 (arXiv:2010.11929) Table 1: 307M (24 layers, 1024, MLP 4096, 16 heads)"),
                  vit_l, 0, 224, "");
  TransformerConfig bert_b{TransformerKind::kEncoder, 12, 0, 768, 12, 3072, 30522, true, false, 0};
  TransformerConfig bert_l{TransformerKind::kEncoder, 24, 0, 1024, 16, 4096, 30522, true, false, 0};
  // Default sequence 384: the SQuAD v1.1 fine-tuning length of the measured
  // BERT-large rows (NVIDIA DeepLearningExamples BERT README).
  add_transformer(m, "bert_base", "BERT-base", {"bert-base", "bert_base_uncased"}, 109482240,
                  N_("Devlin et al. 2019 (arXiv:1810.04805): 110M (L=12, H=768, A=12)"), bert_b, 384, 0, "");
  add_transformer(m, "bert_large", "BERT-large", {"bert-large", "bert_large_uncased"}, 335141888,
                  N_("Devlin et al. 2019 (arXiv:1810.04805): 340M (L=24, H=1024, A=16)"), bert_l, 384, 0, "bert_large");
  TransformerConfig g_s{TransformerKind::kDecoder, 12, 0, 768, 12, 3072, 50257, true, false, 0};
  TransformerConfig g_m{TransformerKind::kDecoder, 24, 0, 1024, 16, 4096, 50257, true, false, 0};
  TransformerConfig g_l{TransformerKind::kDecoder, 36, 0, 1280, 20, 5120, 50257, true, false, 0};
  TransformerConfig g_xl{TransformerKind::kDecoder, 48, 0, 1600, 25, 6400, 50257, true, false, 0};
  add_transformer(
      m, "gpt2", "GPT-2 small", {"gpt2-small", "gpt-2", "gpt2_small"}, 124439808,
      N_("Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', Table 2 (117M as published; 124,439,808 counted)"),
      g_s, 1024, 0, "");
  add_transformer(
      m, "gpt2_medium", "GPT-2 medium", {"gpt2-medium"}, 354823168,
      N_("Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', Table 2 (345M; 354,823,168 counted)"),
      g_m, 1024, 0, "");
  add_transformer(
      m, "gpt2_large", "GPT-2 large", {"gpt2-large"}, 774030080,
      N_("Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', Table 2 (762M; 774,030,080 counted)"),
      g_l, 1024, 0, "");
  add_transformer(
      m, "gpt2_xl", "GPT-2 XL", {"gpt2-xl"}, 1557611200,
      N_("Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', Table 2 (1542M; 1,557,611,200 counted)"),
      g_xl, 1024, 0, "");
  TransformerConfig t5{TransformerKind::kEncoderDecoder, 12, 12, 768, 12, 3072, 32128, true, false, 0};
  add_transformer(
      m, "t5_base", "T5-base", {"t5-base"}, 222903552,
      N_("Raffel et al. 2020 (arXiv:1910.10683) section 3.1: 220M (12+12 layers, 768, d_ff 3072, 12 heads)"), t5, 512,
      0, "");
  TransformerConfig l7{TransformerKind::kDecoder, 32, 0, 4096, 32, 11008, 32000, false, true, 0};
  TransformerConfig l13{TransformerKind::kDecoder, 40, 0, 5120, 40, 13824, 32000, false, true, 0};
  add_transformer(m, "llama_7b", "Llama-style 7B", {"llama-7b", "llama7b", "llama2-7b"}, 6738415616,
                  N_("Touvron et al. 2023 (arXiv:2302.13971) Table 2: 6.7B (32 layers, 4096, 32 heads, SwiGLU 11008)"),
                  l7, 2048, 0, "");
  add_transformer(m, "llama_13b", "Llama-style 13B", {"llama-13b", "llama13b", "llama2-13b"}, 13015864320,
                  N_("Touvron et al. 2023 (arXiv:2302.13971) Table 2: 13.0B (40 layers, 5120, 40 heads, SwiGLU 13824)"),
                  l13, 2048, 0, "");
}

}  // namespace

const std::vector<CatalogModel>& model_catalog() {
  static const std::vector<CatalogModel> kModels = [] {
    std::vector<CatalogModel> m;
    add_cnn_models(m);
    add_transformer_models(m);
    return m;
  }();
  return kModels;
}

const CatalogModel* find_model(std::string_view name) {
  const std::string want = core::to_lower(core::trim(name));
  for (const CatalogModel& m : model_catalog()) {
    if (m.id == want) return &m;
    for (const std::string& a : m.aliases) {
      if (a == want) return &m;
    }
  }
  return nullptr;
}

core::Result<Workload> catalog_workload(const CatalogModel& model, int image_size, int seq_len) {
  Workload w;
  w.model_id = model.id;
  w.display_name = core::verbatim(model.display_name);
  w.family = model.family;
  w.params = model.published_params;
  w.params_source = core::Message(model.params_source);  // a marked source (N_ above): translated when shown
  w.transformer = model.transformer;
  w.image_size = image_size > 0 ? image_size : model.default_image_size;
  w.seq_len = seq_len > 0 ? seq_len : model.default_seq_len;
  if (w.image_size < 0 || w.image_size > 8192) {
    return core::fail(core::ErrorCode::kInvalidArgument, "--image-size",
                      _("expected an image side from 1 to 8192 pixels"));
  }
  if (model.family == Family::kCnn) {
    if (model.id == "resnet50")
      w.layers = build_resnet(50, w.image_size);
    else if (model.id == "resnet101")
      w.layers = build_resnet(101, w.image_size);
    else if (model.id == "resnet152")
      w.layers = build_resnet(152, w.image_size);
    else if (model.id == "resnext101_32x4d")
      w.layers = build_resnext101_32x4d(w.image_size, false);
    else if (model.id == "se_resnext101_32x4d")
      w.layers = build_resnext101_32x4d(w.image_size, true);
    else if (model.id == "vgg16")
      w.layers = build_vgg16(w.image_size);
    else if (model.id == "inception_v3")
      w.layers = build_inception_v3(w.image_size);
    else if (model.id == "mobilenet_v2")
      w.layers = build_mobilenet_v2(w.image_size);
    else if (model.id == "efficientnet_b0")
      w.layers = build_efficientnet(1.0, 1.0, w.image_size);
    else if (model.id == "efficientnet_b4")
      w.layers = build_efficientnet(1.4, 1.8, w.image_size);
    uint64_t frozen = 0;
    for (const Layer& l : w.layers) {
      if (l.kind == LayerKind::kBatchNorm) {  // moving mean and variance: 2 of 4 (or of 3 without scale) per channel
        frozen += l.type == kBatchNormNoScale ? l.params / 3 * 2 : l.params / 2;
      }
      if (l.kind == LayerKind::kPreprocess) frozen += l.params;
    }
    w.trainable_params = w.params > frozen ? w.params - frozen : 0;
    if (model.throughput_model == "resnet50" && w.image_size == 224) w.throughput_key = "resnet50";
  } else {
    TransformerConfig& c = *w.transformer;
    if (c.kind == TransformerKind::kVision) {
      if (w.image_size % c.patch != 0) {
        return core::fail(core::ErrorCode::kInvalidArgument, "--image-size",
                          trf("ViT needs a multiple of its patch size {}", c.patch));
      }
      const int side = w.image_size / c.patch;
      w.seq_len = side * side + 1;  // patches + class token
    }
    if (w.seq_len <= 0 || w.seq_len > 1 << 20) {
      return core::fail(core::ErrorCode::kInvalidArgument, "--seq-len",
                        _("expected a sequence length from 1 to 1048576 tokens"));
    }
    w.trainable_params = w.params;
    if (!model.throughput_model.empty() && (w.seq_len == 384 || w.seq_len == 128)) {
      w.throughput_key = model.throughput_model + "@" + std::to_string(w.seq_len);
    }
  }
  return w;
}

}  // namespace tfrig::plan
