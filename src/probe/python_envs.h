// Finds Python environments on disk without running Python, for the python
// probe (TensorFlow, Keras, nvidia-* wheels) and the cuda_libs probe (the
// libraries inside NVIDIA's pip wheels).
//
// Where pip and conda put packages (pip docs "User Installs", PEP 405 venvs,
// Debian's python policy for dist-packages, conda's "envs" layout):
//   system  /usr/lib/python3/dist-packages (Debian/Ubuntu apt),
//           /usr/lib/python3.X/site-packages (other distributions),
//           /usr/local/lib/python3.X/{dist,site}-packages (pip as root)
//   user    $HOME/.local/lib/python3.X/site-packages (pip --user)
//   venv    $VIRTUAL_ENV/lib/python3.X/site-packages
//   conda   $CONDA_PREFIX, its envs/*, and the usual install roots
//           (/opt/conda, /opt/miniconda3, ~/miniconda3, ~/anaconda3, ~/miniforge3)
//   given   each --python PREFIX
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/sysroot.h"

namespace tfrig::probe {

struct PythonSite {
  std::string prefix;                         // "/usr", "/opt/conda/envs/tf"
  std::string kind;                           // "system", "user", "venv", "conda", "given"
  std::optional<std::string> python_version;  // "3.11"
  std::string site_packages;                  // absolute path on the probed machine
};

// Every site-packages (or dist-packages) directory found, each once, in the
// order above.
std::vector<PythonSite> find_python_sites(const core::SysRoot& root, const std::vector<std::string>& given_prefixes);

// Resolves symbolic links inside the root, component by component (an
// absolute link target is taken relative to the root, as the probed machine
// would see it). Returns the path as written when a loop or error stops it.
std::string resolve_in_root(const core::SysRoot& root, const std::string& path);

}  // namespace tfrig::probe
