// The compiled catalogs (po/*.po -> msgfmt -> .mo), embedded by the build
// (cmake/TfrigI18n.cmake writes the definitions into generated/i18n_catalogs.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace tfrig::core::i18n::embedded {

struct EmbeddedCatalog {
  std::string_view language;  // "zh_CN"
  std::string_view mo;        // the .mo image
};

extern const EmbeddedCatalog kCatalogs[];
extern const size_t kCatalogCount;

}  // namespace tfrig::core::i18n::embedded
