#include "tfrecord/image_header.h"

#include <fmt/format.h>

#include "core/i18n.h"

namespace tfrig::tfrecord {

namespace {

using core::ErrorCode;

uint32_t u8(std::string_view d, size_t i) { return static_cast<unsigned char>(d[i]); }
uint32_t be16(std::string_view d, size_t i) { return u8(d, i) << 8 | u8(d, i + 1); }
uint32_t be32(std::string_view d, size_t i) { return be16(d, i) << 16 | be16(d, i + 2); }
uint32_t le16(std::string_view d, size_t i) { return u8(d, i) | u8(d, i + 1) << 8; }
uint32_t le24(std::string_view d, size_t i) { return le16(d, i) | u8(d, i + 2) << 16; }
uint32_t le32(std::string_view d, size_t i) { return le16(d, i) | le16(d, i + 2) << 16; }

tl::unexpected<core::Error> bad(std::string_view format, size_t at, std::string what) {
  return core::fail(ErrorCode::kParse, trf("byte {}", at), trf("{} header: {}", format, what));
}

// JPEG (ITU-T T.81 annex B): markers FF xx; SOFn (C0-CF except C4 DHT, C8 JPG,
// CC DAC) carry P, Y (height), X (width), Nf (components). Segments other than
// SOI/EOI/RSTn/TEM carry a 2-byte big-endian length that includes itself.
core::Result<ImageInfo> jpeg(std::string_view d) {
  size_t i = 2;
  while (i + 4 <= d.size()) {
    if (u8(d, i) != 0xFF) return bad("JPEG", i, trf("expected a marker (FF xx), found 0x{:02x}", u8(d, i)));
    uint32_t marker = u8(d, i + 1);
    if (marker == 0xFF) {  // fill byte (T.81 B.1.1.2)
      ++i;
      continue;
    }
    if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
      i += 2;
      continue;
    }
    if (marker == 0xD9 || marker == 0xDA) break;  // EOI / SOS before any SOF
    uint32_t len = be16(d, i + 2);
    if (len < 2) return bad("JPEG", i + 2, trf("segment length {} < 2", len));
    bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      if (i + 10 > d.size()) return bad("JPEG", i, _("SOF segment cut short"));
      ImageInfo info{"jpeg", be16(d, i + 7), be16(d, i + 5), u8(d, i + 9)};
      // Y = 0 means "defined by a DNL marker later" (T.81 B.2.2); rare, and
      // we do not scan the entropy data for it.
      if (info.width == 0 || info.height == 0) return bad("JPEG", i + 5, _("zero width or height in SOF"));
      if (info.channels != 1 && info.channels != 3 && info.channels != 4) {
        return bad("JPEG", i + 9, trf("{} components; expected 1, 3 or 4", info.channels));
      }
      return info;
    }
    i += 2 + len;
  }
  return bad("JPEG", i, _("no SOF (frame header) marker before the image data or end of file"));
}

// PNG (ISO/IEC 15948, W3C PNG spec 11.2.2): signature, then IHDR first:
// length(4) "IHDR" width(4 BE) height(4 BE) bit depth, colour type.
// Channels by colour type: 0 grey 1, 2 RGB 3, 3 palette 3 (decode_png expands
// it), 4 grey+alpha 2, 6 RGBA 4.
core::Result<ImageInfo> png(std::string_view d) {
  if (d.size() < 26) return bad("PNG", d.size(), _("file ends inside the IHDR chunk"));
  if (d.substr(12, 4) != "IHDR") return bad("PNG", 12, _("first chunk is not IHDR"));
  ImageInfo info{"png", be32(d, 16), be32(d, 20), 0};
  switch (u8(d, 25)) {
    case 0: info.channels = 1; break;
    case 2: info.channels = 3; break;
    case 3: info.channels = 3; break;
    case 4: info.channels = 2; break;
    case 6: info.channels = 4; break;
    default: return bad("PNG", 25, trf("colour type {}; expected 0, 2, 3, 4 or 6", u8(d, 25)));
  }
  if (info.width == 0 || info.height == 0) return bad("PNG", 16, _("zero width or height"));
  return info;
}

// GIF (GIF89a spec section 18, Logical Screen Descriptor): width, height as
// little-endian 16-bit at bytes 6 and 8. tf.io.decode_gif gives RGB (3).
core::Result<ImageInfo> gif(std::string_view d) {
  if (d.size() < 10) return bad("GIF", d.size(), _("file ends inside the logical screen descriptor"));
  ImageInfo info{"gif", le16(d, 6), le16(d, 8), 3};
  if (info.width == 0 || info.height == 0) return bad("GIF", 6, _("zero width or height"));
  return info;
}

// BMP (Microsoft BITMAPINFOHEADER and later): DIB header size at 14; width
// int32 at 18, height int32 at 22 (negative = top-down rows), bit count
// uint16 at 28. BITMAPCOREHEADER (size 12) has 16-bit sizes at 18/20 and bit
// count at 24. tf.io.decode_bmp gives 4 channels for 32-bit, 3 for 24-bit,
// 1 for 8-bit.
core::Result<ImageInfo> bmp(std::string_view d) {
  if (d.size() < 26) return bad("BMP", d.size(), _("file ends inside the DIB header"));
  uint32_t dib = le32(d, 14);
  ImageInfo info{"bmp", 0, 0, 0};
  uint32_t bits = 0;
  if (dib == 12) {
    info.width = le16(d, 18);
    info.height = le16(d, 20);
    bits = d.size() >= 26 ? le16(d, 24) : 0;
  } else if (dib >= 40) {
    if (d.size() < 30) return bad("BMP", d.size(), _("file ends inside the DIB header"));
    auto w = static_cast<int32_t>(le32(d, 18));
    auto h = static_cast<int32_t>(le32(d, 22));
    info.width = static_cast<uint32_t>(w < 0 ? -static_cast<int64_t>(w) : w);
    info.height = static_cast<uint32_t>(h < 0 ? -static_cast<int64_t>(h) : h);
    bits = le16(d, 28);
  } else {
    return bad("BMP", 14, trf("DIB header size {}; expected 12 or at least 40", dib));
  }
  switch (bits) {
    case 32: info.channels = 4; break;
    case 24: info.channels = 3; break;
    case 8: info.channels = 1; break;
    default: return bad("BMP", 28, trf("{} bits per pixel; expected 8, 24 or 32", bits));
  }
  if (info.width == 0 || info.height == 0) return bad("BMP", 18, _("zero width or height"));
  return info;
}

// WebP (RFC 9649, "WebP Image Format"): "RIFF" size "WEBP" then the first
// chunk: VP8X (extended: 24-bit canvas width-1 at 24, height-1 at 27, alpha
// flag 0x10 in byte 20), VP8L (lossless: signature 0x2f at 20, then 14-bit
// width-1 and height-1, alpha hint bit), or VP8 (lossy, RFC 6386 9.1: start
// code 9d 01 2a at 23, 14-bit width at 26 and height at 28).
core::Result<ImageInfo> webp(std::string_view d) {
  if (d.size() < 30) return bad("WebP", d.size(), _("file ends inside the first chunk header"));
  std::string_view chunk = d.substr(12, 4);
  ImageInfo info{"webp", 0, 0, 3};
  if (chunk == "VP8X") {
    info.width = le24(d, 24) + 1;
    info.height = le24(d, 27) + 1;
    if (u8(d, 20) & 0x10) info.channels = 4;
  } else if (chunk == "VP8L") {
    if (u8(d, 20) != 0x2f) return bad("WebP", 20, trf("VP8L signature 0x{:02x}; expected 0x2f", u8(d, 20)));
    uint32_t bits = le32(d, 21);
    info.width = (bits & 0x3fff) + 1;
    info.height = ((bits >> 14) & 0x3fff) + 1;
    if ((bits >> 28) & 1) info.channels = 4;
  } else if (chunk == "VP8 ") {
    if (u8(d, 23) != 0x9d || u8(d, 24) != 0x01 || u8(d, 25) != 0x2a) {
      return bad("WebP", 23, _("VP8 start code is not 9d 01 2a"));
    }
    info.width = le16(d, 26) & 0x3fff;
    info.height = le16(d, 28) & 0x3fff;
  } else {
    return bad("WebP", 12, _("first chunk is not VP8, VP8L or VP8X"));
  }
  if (info.width == 0 || info.height == 0) return bad("WebP", 20, _("zero width or height"));
  return info;
}

}  // namespace

core::Result<ImageInfo> sniff_image(std::string_view d) {
  if (d.size() >= 3 && u8(d, 0) == 0xFF && u8(d, 1) == 0xD8 && u8(d, 2) == 0xFF) return jpeg(d);
  if (d.size() >= 8 && d.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return png(d);
  if (d.size() >= 6 && (d.substr(0, 6) == "GIF87a" || d.substr(0, 6) == "GIF89a")) return gif(d);
  if (d.size() >= 2 && d.substr(0, 2) == "BM") return bmp(d);
  if (d.size() >= 12 && d.substr(0, 4) == "RIFF" && d.substr(8, 4) == "WEBP") return webp(d);
  if (d.empty()) return core::fail(ErrorCode::kParse, trf("byte {}", 0), _("empty file; expected an image"));
  return core::fail(ErrorCode::kParse, trf("byte {}", 0),
                    trf("not a JPEG, PNG, GIF, BMP or WebP image (starts with {:02x} {:02x})", u8(d, 0),
                        d.size() > 1 ? u8(d, 1) : 0u));
}

}  // namespace tfrig::tfrecord
