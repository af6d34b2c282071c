#!/bin/sh
# Builds the GPU-stack fixture roots under tests/data/roots/ (the results are
# committed; rerun after changing this script and review the diff).
#
#   stack-cuda12/   a TensorFlow GPU server as laid out on disk: driver 535
#                   user-space libraries, CUDA 12.2 and 11.8 toolkits, cuDNN 8,
#                   pip wheels (tensorflow 2.15 + nvidia-*-cu12), a venv with
#                   tensorflow 2.16.1, a conda env with tensorflow-cpu 2.12,
#                   Docker with the NVIDIA runtime, CDI, /proc/driver/nvidia
#                   from a real bug report (pavana27/Lambda-Bug-report, 2x A6000).
#   stack-nodriver/ like this development machine: a CUDA 13 toolkit installed
#                   from NVIDIA's wheels (dist-info beside lib/), cuDNN 9, no
#                   driver, one NVIDIA GPU on the PCI bus bound to nothing and
#                   one bound to nouveau.
#
# Libraries are tiny real ELF shared objects with the real SONAME (ldconfig
# only caches ELF files); ld.so.cache is made by `ldconfig -C FILE -r ROOT`
# exactly as on a machine. METADATA headers and build_info.py follow the
# real wheels; the version pins follow data/reference/tf_pip_cuda_extras.yaml
# and tf_build_matrix.yaml. Needs gcc and ldconfig (Debian 12: gcc, libc-bin).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/empty.c"

# so ROOT DIR FILE SONAME: a minimal ELF shared object.
so() {
  mkdir -p "$1/$2"
  gcc -shared -nostdlib -s -Wl,-soname,"$4" -Wl,-z,max-page-size=16 -Wl,-z,noseparate-code \
      -Wl,--build-id=none -o "$1/$2/$3" "$tmp/empty.c"
}

# dist ROOT SITE DISTDIR NAME VERSION [REQUIRES_PYTHON] [SUMMARY]: a dist-info with a METADATA header.
dist() {
  d="$1/$2/$3"
  mkdir -p "$d"
  {
    echo "Metadata-Version: 2.1"
    echo "Name: $4"
    echo "Version: $5"
    echo "Summary: ${7:-}"
    echo "Home-page: ${8:-https://developer.nvidia.com/cuda-zone}"
    [ -n "${6:-}" ] && echo "Requires-Python: $6"
    echo "License: ${9:-NVIDIA Proprietary Software}"
    echo ""
    echo "${7:-}"
  } > "$d/METADATA"
  echo "pip" > "$d/INSTALLER"
}

tfmeta() {  # ROOT SITE DISTDIR NAME VERSION REQUIRES_PYTHON EXTRA_LINES
  d="$1/$2/$3"
  mkdir -p "$d"
  cat > "$d/METADATA" <<META
Metadata-Version: 2.1
Name: $4
Version: $5
Summary: TensorFlow is an open source machine learning framework for everyone.
Home-page: https://www.tensorflow.org/
Download-URL: https://github.com/tensorflow/tensorflow/tags
Author: Google Inc.
Author-email: packages@tensorflow.org
License: Apache 2.0
Keywords: tensorflow tensor machine learning
Classifier: Development Status :: 5 - Production/Stable
Classifier: Environment :: GPU :: NVIDIA CUDA :: 12
Classifier: Programming Language :: Python :: 3
Requires-Python: $6
Description-Content-Type: text/markdown
Requires-Dist: absl-py >=1.0.0
Requires-Dist: numpy <2.0.0,>=1.23.5
$7

[![Python](https://img.shields.io/pypi/pyversions/tensorflow.svg?style=plastic)](https://badge.fury.io/py/tensorflow)

TensorFlow is an open source software library for high performance numerical
computation.
META
  echo "pip" > "$d/INSTALLER"
}

buildinfo() {  # ROOT SITE LITERAL
  mkdir -p "$1/$2/tensorflow/python/platform"
  cat > "$1/$2/tensorflow/python/platform/build_info.py" <<PY
# Copyright 2020 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# ==============================================================================
"""Auto-generated module providing information about the build."""
import collections

build_info = collections.OrderedDict($3)
PY
}

cudnn_h() {  # ROOT DIR MAJOR MINOR PATCH
  mkdir -p "$1/$2"
  cat > "$1/$2/cudnn_version.h" <<H
/*
 * Copyright 2014-2023 NVIDIA Corporation.  All rights reserved.
 */

/**
 * \file: The master cuDNN version file.
 */

#ifndef CUDNN_VERSION_H_
#define CUDNN_VERSION_H_

#define CUDNN_MAJOR $3
#define CUDNN_MINOR $4
#define CUDNN_PATCHLEVEL $5

#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)

#endif /* CUDNN_VERSION_H */
H
}

pci_gpu() {  # ROOT ADDR DEVICE DRIVER(or -) SPEED_CUR SPEED_MAX WIDTH_CUR WIDTH_MAX NUMA
  d="$1/sys/devices/pci0000:00/$2"
  mkdir -p "$d" "$1/sys/bus/pci/devices"
  echo 0x10de > "$d/vendor"; echo "$3" > "$d/device"; echo 0x030000 > "$d/class"
  echo "$5" > "$d/current_link_speed"; echo "$6" > "$d/max_link_speed"
  echo "$7" > "$d/current_link_width"; echo "$8" > "$d/max_link_width"; echo "$9" > "$d/numa_node"
  if [ "$4" != "-" ]; then
    mkdir -p "$1/sys/bus/pci/drivers/$4"
    ln -sfn "../../../bus/pci/drivers/$4" "$d/driver"
  fi
  ln -sfn "../../../devices/pci0000:00/$2" "$1/sys/bus/pci/devices/$2"
}

# ---------------------------------------------------------------- stack-cuda12
r="$here/stack-cuda12"
rm -rf "$r"; mkdir -p "$r/etc/ld.so.conf.d"
printf 'include /etc/ld.so.conf.d/*.conf\n\n' > "$r/etc/ld.so.conf"
printf '# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' > "$r/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
printf '/usr/local/cuda-12.2/targets/x86_64-linux/lib\n' > "$r/etc/ld.so.conf.d/cuda-12-2.conf"
# Driver 535.113.01 user space (what the .run / .deb driver installs).
so "$r" usr/lib/x86_64-linux-gnu libcuda.so.535.113.01 libcuda.so.1
so "$r" usr/lib/x86_64-linux-gnu libnvidia-ml.so.535.113.01 libnvidia-ml.so.1
# cuDNN 8.9.4 from NVIDIA's .deb (libcudnn8).
so "$r" usr/lib/x86_64-linux-gnu libcudnn.so.8.9.4 libcudnn.so.8
so "$r" usr/lib/x86_64-linux-gnu libcudnn_ops_infer.so.8.9.4 libcudnn_ops_infer.so.8
so "$r" usr/lib/x86_64-linux-gnu libcudnn_cnn_infer.so.8.9.4 libcudnn_cnn_infer.so.8
so "$r" usr/lib/x86_64-linux-gnu libnvidia-container.so.1.14.3 libnvidia-container.so.1
cudnn_h "$r" usr/include/x86_64-linux-gnu 8 9 4
# CUDA 12.2 toolkit (runfile layout: targets/<arch>/lib, lib64 -> it).
tl=usr/local/cuda-12.2/targets/x86_64-linux/lib
so "$r" $tl libcudart.so.12.2.140 libcudart.so.12
so "$r" $tl libcublas.so.12.2.5.6 libcublas.so.12
so "$r" $tl libcublasLt.so.12.2.5.6 libcublasLt.so.12
so "$r" $tl libcufft.so.11.0.8.103 libcufft.so.11
so "$r" $tl libcurand.so.10.3.3.141 libcurand.so.10
so "$r" $tl libcusolver.so.11.5.2.141 libcusolver.so.11
so "$r" $tl libcusparse.so.12.1.2.141 libcusparse.so.12
so "$r" $tl libnvrtc.so.12.2.140 libnvrtc.so.12
so "$r" $tl libnvJitLink.so.12.2.140 libnvJitLink.so.12
so "$r" usr/local/cuda-12.2/extras/CUPTI/lib64 libcupti.so.2023.2.2 libcupti.so.12
ln -sfn targets/x86_64-linux/lib "$r/usr/local/cuda-12.2/lib64"
ln -sfn cuda-12.2 "$r/usr/local/cuda"
cat > "$r/usr/local/cuda-12.2/version.json" <<'J'
{
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "12.2.2"
   },
   "cuda_cudart" : {
      "name" : "CUDA Runtime (cudart)",
      "version" : "12.2.140"
   },
   "libcublas" : {
      "name" : "CUDA cuBLAS",
      "version" : "12.2.5.6"
   }
}
J
# CUDA 11.8 toolkit, not on the loader path.
so "$r" usr/local/cuda-11.8/targets/x86_64-linux/lib libcudart.so.11.8.89 libcudart.so.11.0
ln -sfn targets/x86_64-linux/lib "$r/usr/local/cuda-11.8/lib64"
printf '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      "version" : "11.8.20220929"\n   }\n}\n' > "$r/usr/local/cuda-11.8/version.json"
# CUDA 10.2 toolkit, old style version.txt.
mkdir -p "$r/usr/local/cuda-10.2"; printf 'CUDA Version 10.2.89\n' > "$r/usr/local/cuda-10.2/version.txt"

# System Python 3.10 (Ubuntu 22.04) with pip-installed tensorflow 2.15 and its CUDA wheels.
mkdir -p "$r/usr/lib/python3.10" "$r/usr/lib/python3/dist-packages"
site=usr/local/lib/python3.10/dist-packages
tfmeta "$r" $site tensorflow-2.15.0.dist-info tensorflow 2.15.0 ">=3.9" "Requires-Dist: nvidia-cublas-cu12 ==12.2.5.6 ; extra == 'and-cuda'
Requires-Dist: nvidia-cudnn-cu12 ==8.9.4.25 ; extra == 'and-cuda'
Provides-Extra: and-cuda"
buildinfo "$r" $site "[('cpu_compiler', '/usr/lib/llvm-16/bin/clang'), ('cuda_compute_capabilities', ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), ('cuda_version', '12.2'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)]"
dist "$r" $site keras-2.15.0.dist-info keras 2.15.0 ">=3.9" "Deep learning for humans." "https://keras.io/" "Apache 2.0"
dist "$r" $site nvidia_cudnn_cu12-8.9.4.25.dist-info nvidia-cudnn-cu12 8.9.4.25 ">=3" "cuDNN runtime libraries"
dist "$r" $site nvidia_cublas_cu12-12.2.5.6.dist-info nvidia-cublas-cu12 12.2.5.6 ">=3" "CUBLAS native runtime libraries"
dist "$r" $site nvidia_cuda_runtime_cu12-12.2.140.dist-info nvidia-cuda-runtime-cu12 12.2.140 ">=3" "CUDA Runtime native Libraries"
so "$r" $site/nvidia/cudnn/lib libcudnn.so.8 libcudnn.so.8
so "$r" $site/nvidia/cudnn/lib libcudnn_ops_infer.so.8 libcudnn_ops_infer.so.8
cudnn_h "$r" $site/nvidia/cudnn/include 8 9 4
so "$r" $site/nvidia/cublas/lib libcublas.so.12 libcublas.so.12
so "$r" $site/nvidia/cublas/lib libcublasLt.so.12 libcublasLt.so.12
so "$r" $site/nvidia/cuda_runtime/lib libcudart.so.12 libcudart.so.12

# A venv with tensorflow 2.16.1 (Python 3.11).
v=home/ml/venvs/tf216
mkdir -p "$r/$v/bin"
printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.8\nexecutable = /usr/bin/python3.11\ncommand = /usr/bin/python3 -m venv /home/ml/venvs/tf216\n' > "$r/$v/pyvenv.cfg"
vsite=$v/lib/python3.11/site-packages
tfmeta "$r" $vsite tensorflow-2.16.1.dist-info tensorflow 2.16.1 ">=3.9" "Requires-Dist: nvidia-cudnn-cu12 ==8.9.7.29 ; extra == 'and-cuda'
Provides-Extra: and-cuda"
buildinfo "$r" $vsite "[('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('cuda_compute_capabilities', ['sm_50', 'sm_60', 'sm_70', 'sm_80', 'compute_90']), ('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)]"
dist "$r" $vsite keras-3.1.1.dist-info keras 3.1.1 ">=3.9" "Multi-backend Keras." "https://github.com/keras-team/keras" "Apache License 2.0"
dist "$r" $vsite nvidia_cudnn_cu12-8.9.7.29.dist-info nvidia-cudnn-cu12 8.9.7.29 ">=3" "cuDNN runtime libraries"
so "$r" $vsite/nvidia/cudnn/lib libcudnn.so.8 libcudnn.so.8
dist "$r" $vsite nvidia_nccl_cu12-2.19.3.dist-info nvidia-nccl-cu12 2.19.3 ">=3" "NVIDIA Collective Communication Library (NCCL) Runtime"
so "$r" $vsite/nvidia/nccl/lib libnccl.so.2 libnccl.so.2

# Conda: base without TensorFlow, env "cpu" with tensorflow-cpu 2.12.0.
mkdir -p "$r/opt/conda/lib/python3.11/site-packages" "$r/opt/conda/conda-meta"
csite=opt/conda/envs/cpu/lib/python3.9/site-packages
tfmeta "$r" $csite tensorflow_cpu-2.12.0.dist-info tensorflow-cpu 2.12.0 ">=3.8" ""
buildinfo "$r" $csite "[('cpu_compiler', '/dt9/usr/bin/gcc'), ('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)]"

# Docker with the NVIDIA Container Toolkit, a CDI spec.
mkdir -p "$r/usr/bin" "$r/etc/docker" "$r/etc/cdi"
for b in docker nvidia-ctk nvidia-container-runtime nvidia-container-cli; do : > "$r/usr/bin/$b"; chmod 755 "$r/usr/bin/$b"; done
cat > "$r/etc/docker/daemon.json" <<'J'
{
    "default-runtime": "nvidia",
    "runtimes": {
        "nvidia": {
            "args": [],
            "path": "nvidia-container-runtime"
        }
    }
}
J
printf 'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: "0"\n  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia0\n' > "$r/etc/cdi/nvidia.yaml"

# The kernel side: /proc/driver/nvidia from a real bug report (2x RTX A6000,
# 535.113.01), /proc/modules in the kernel's format, device nodes, sysfs PCI.
fx="$here/../proc-driver-nvidia/pavana27__Lambda-Bug-report/proc"
mkdir -p "$r/proc"; cp -r "$fx/driver" "$r/proc/"
cat > "$r/proc/modules" <<'M'
nvidia_uvm 1523712 0 - Live 0x0000000000000000 (POE)
nvidia_drm 77824 2 - Live 0x0000000000000000 (POE)
nvidia_modeset 1302528 1 nvidia_drm, Live 0x0000000000000000 (POE)
nvidia 56827904 13 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)
drm_kms_helper 311296 1 nvidia_drm, Live 0x0000000000000000
ext4 1019904 1 - Live 0x0000000000000000
M
mkdir -p "$r/dev/nvidia-caps"
for n in nvidia0 nvidia1 nvidiactl nvidia-uvm nvidia-uvm-tools nvidia-modeset; do : > "$r/dev/$n"; chmod 666 "$r/dev/$n"; done
pci_gpu "$r" 0000:2e:00.0 0x2230 nvidia "16.0 GT/s PCIe" "16.0 GT/s PCIe" 16 16 0
pci_gpu "$r" 0000:41:00.0 0x2230 nvidia "2.5 GT/s PCIe" "16.0 GT/s PCIe" 8 16 0

ldconfig -C /etc/ld.so.cache -r "$r"
# Added after the last ldconfig run: in ld.so.conf, missing from the cache.
printf '/opt/nccl/lib\n' > "$r/etc/ld.so.conf.d/nccl.conf"
so "$r" opt/nccl/lib libnccl.so.2.18.3 libnccl.so.2
ln -sfn libnccl.so.2.18.3 "$r/opt/nccl/lib/libnccl.so.2"
# A private cuDNN 9 reached only through LD_LIBRARY_PATH, version from its header.
so "$r" opt/cudnn9/lib libcudnn.so.9 libcudnn.so.9
cudnn_h "$r" opt/cudnn9/include 9 1 0

# ---------------------------------------------------------------- stack-nodriver
r="$here/stack-nodriver"
rm -rf "$r"; mkdir -p "$r/etc/ld.so.conf.d" "$r/proc"
printf 'include /etc/ld.so.conf.d/*.conf\n' > "$r/etc/ld.so.conf"
printf '/usr/local/cuda-13.0/lib\n' > "$r/etc/ld.so.conf.d/000_cuda.conf"
t=usr/local/cuda-13.0
so "$r" $t/lib libcudart.so.13 libcudart.so.13
so "$r" $t/lib libcublas.so.13 libcublas.so.13
so "$r" $t/lib libcudnn.so.9 libcudnn.so.9
so "$r" $t/lib libcudnn_graph.so.9 libcudnn_graph.so.9
so "$r" $t/lib/stubs libcuda.so libcuda.so.1
cudnn_h "$r" $t/include 9 19 0
dist "$r" $t/dist-info nvidia_cuda_runtime-13.0.96.dist-info nvidia-cuda-runtime 13.0.96 ">=3" "CUDA Runtime native Libraries"
dist "$r" $t/dist-info nvidia_cublas-13.1.0.3.dist-info nvidia-cublas 13.1.0.3 ">=3" "CUBLAS native runtime libraries"
dist "$r" $t/dist-info nvidia_cudnn_cu13-9.19.0.56.dist-info nvidia-cudnn-cu13 9.19.0.56 ">=3" "cuDNN runtime libraries"
ln -sfn cuda-13.0 "$r/usr/local/cuda"
mkdir -p "$r/usr/lib/python3.11" "$r/usr/lib/python3/dist-packages" "$r/dev"
printf 'ext4 1019904 1 - Live 0x0000000000000000\nnouveau 2899968 1 - Live 0x0000000000000000\n' > "$r/proc/modules"
pci_gpu "$r" 0000:01:00.0 0x2684 - "16.0 GT/s PCIe" "16.0 GT/s PCIe" 16 16 -1
pci_gpu "$r" 0000:02:00.0 0x1e04 nouveau "8.0 GT/s PCIe" "8.0 GT/s PCIe" 16 16 -1
ldconfig -C /etc/ld.so.cache -r "$r"

# ---------------------------------------------------------------- loader caches in the three formats
c="$here/../ld-so-cache"
mkdir -p "$c"
ldconfig -c new -C /tmp-new.cache -r "$here/stack-cuda12" -f /etc/ld.so.conf && mv "$here/stack-cuda12/tmp-new.cache" "$c/stack-cuda12.new.cache"
ldconfig -c compat -C /tmp-compat.cache -r "$here/stack-cuda12" && mv "$here/stack-cuda12/tmp-compat.cache" "$c/stack-cuda12.compat.cache"
ldconfig -c old -C /tmp-old.cache -r "$here/stack-cuda12" && mv "$here/stack-cuda12/tmp-old.cache" "$c/stack-cuda12.old.cache"
echo "built $here/stack-cuda12 $here/stack-nodriver and $c"
