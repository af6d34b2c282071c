// tfrig setup, the renderers: a SetupPlan to the files written into -o DIR,
// from the templates in src/setup/templates/ (templates.h). Templates hold no
// version: every version comes from the plan, which takes it from the
// knowledge base (tests/setup/setup_files_test.cpp checks).
#pragma once

#include <string>
#include <vector>

#include "setup/plan.h"
#include "setup/quote.h"

namespace tfrig::setup {

struct OutputFile {
  std::string path;  // relative to DIR: "install.sh", "sysctl.d/90-tfrig.conf"
  std::string content;
  unsigned mode = 0644;
};

std::string render_install_sh(const SetupPlan& p, const knowledge::Knowledge& k);
std::string render_env(const SetupPlan& p);
std::string render_tuning_py(const SetupPlan& p);
std::string render_sysctl(const SetupPlan& p);
std::string render_limits(const SetupPlan& p);
std::string render_dockerfile(const SetupPlan& p);
std::string render_compose(const SetupPlan& p, const knowledge::Knowledge& k);
std::string render_readme(const SetupPlan& p, const knowledge::Knowledge& k);

// Every file of the plan, in a stable order.
std::vector<OutputFile> render_all(const SetupPlan& p, const knowledge::Knowledge& k);

// "@{message}@" -> its translation (templates.h), then each "@KEY@" -> its
// value, quoted for the language of the file and where the field stands in it
// (quote.h): a value never becomes code.
std::string fill(std::string text, const quote::Values& values, quote::Lang lang);

}  // namespace tfrig::setup
