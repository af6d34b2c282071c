#!/usr/bin/env bash
# The HTML report in a real browser (docs/report.md): writes one page of each
# kind from fixtures (a snapshot, an 8-GPU bug report, plan, pipeline, a bench
# history in a temporary SQLite file, a recorded watch, a fleet, and tfrig
# report combining three), validates each with tidy, opens each in headless
# chromium and checks what it saw (tests/browser/check_page.py): the DOM holds
# every value of the JSON output, no console message, no load refused by the
# Content-Security-Policy, screenshots at 1280 and 390 px and a PDF that are
# not blank. The same in Chinese (--lang zh_CN: doctor and plan pages, with
# a CJK font so the screenshots show the characters). The pictures stay in
# BUILD/browser-artifacts for people to look at.
#
# usage: browser_test.sh TFRIG SOURCE_DIR ARTIFACT_DIR FAKE_NVML_LIBRARY
# Exit 77 (skipped) when chromium, tidy, python3-pil or a CJK font is missing (scripts/deps-report.txt).
set -euo pipefail
tfrig="$(realpath "$1")"
src="$(realpath "$2")"
out="$3"
fake_nvml="$(realpath "$4")"
data="$src/tests/data"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

python=/usr/bin/python3
[ -x "$python" ] || python=python3
for tool in chromium tidy; do
  if ! command -v "$tool" > /dev/null; then
    echo "browser_test: $tool not installed (scripts/deps-report.txt): skipped"
    exit 77
  fi
done
# Without a font that has Chinese characters the zh_CN screenshots would show boxes.
if ! fc-list :lang=zh-cn family 2> /dev/null | grep -q .; then
  echo "browser_test: no CJK font (fonts-wqy-zenhei, scripts/deps-report.txt): skipped"
  exit 77
fi
if ! "$python" -c "import PIL" 2> /dev/null; then
  echo "browser_test: python3-pil not installed (scripts/deps-report.txt): skipped"
  exit 77
fi

rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Relative names inside the scratch folder: what the pages show as their
# sources reads the same on every machine (and in docs/report/*.png).
ln -s "$data" "$work/data"
cd "$work"
data=data

# ---- the pages, each with the JSON it must show --------------------------
"$tfrig" -q doctor --snapshot "$data/snapshots/gpu_box_two_a100_old_driver.json" --format json -o "doctor.json" || true
"$tfrig" -q doctor --snapshot "$data/snapshots/gpu_box_two_a100_old_driver.json" --format html -o "$out/doctor.html" || true
"$tfrig" -q doctor --from "$data/nvidia-bug-report/Young768__profiling.log.gz" --format json -o "doctor8.json" || true
"$tfrig" -q report -o "$out/doctor8.html" "doctor8.json"
"$tfrig" -q plan --model resnet50 --snapshot "$data/snapshots/gpu_box_two_a100_old_driver.json" --format json -o "plan.json"
"$tfrig" -q plan --model resnet50 --snapshot "$data/snapshots/gpu_box_two_a100_old_driver.json" --format html -o "$out/plan.html"
mkdir -p "dataset"
cp "$data/tfrecord/tfx__cifar10_test.tfrecord" "dataset/"
"$tfrig" -q pipeline --data "dataset" --gpu "NVIDIA GeForce RTX 4090" --seconds 0.05 --no-pack --format json -o "pipeline.json"
"$tfrig" -q report -o "$out/pipeline.html" "pipeline.json"
# Three short runs into a fresh history: the page charts them.
for run in 1 2 3; do
  "$tfrig" -q bench crc32c --repetitions 2 --warmup 0 --sample-seconds 0.02 --budget 1 --history "history.db" \
    --format html -o "$out/bench.html"
done
"$tfrig" -q bench crc32c --repetitions 2 --warmup 0 --sample-seconds 0.02 --budget 1 --no-history --format json -o "bench.json"
"$tfrig" -q watch --replay "$data/watch/io-heavy.jsonl" --format json -o "watch.json"
"$tfrig" -q watch --replay "$data/watch/io-heavy.jsonl" --format html -o "$out/watch.html"
# A live watch of a CPU-bound command with the replaying NVML (a real H100
# capture, tests/data/watch/): the chart has a GPU line.
TFRIG_NVML_LIBRARY="$fake_nvml" TFRIG_FAKE_NVML_CAPTURE="$data/watch/fake-nvml-h100-load.json" \
  "$tfrig" -q watch --interval 100ms --format html -o "$out/watchgpu.html" -- sh -c 'head -c 100000000 /dev/zero | sha256sum > /dev/null'
for node in Young768__profiling duaneya__tool_man eler__git_examples; do
  "$tfrig" -q import "$data/nvidia-bug-report/$node.log.gz" -o "fleet-$node.json"
done
"$tfrig" -q fleet fleet-*.json --format json -o "fleet.json" || true
"$tfrig" -q fleet fleet-*.json --format html -o "$out/fleet.html" || true
"$tfrig" -q report -o "$out/report.html" "$data/snapshots/gpu_box_two_a100_old_driver.json" "bench.json" "pipeline.json"
# In Chinese: the page's words from the catalog, the data as --lang zh_CN's JSON has it.
"$tfrig" -q --lang zh_CN doctor --snapshot "$data/snapshots/gpu_box_two_a100_old_driver.json" --format json -o "doctor-zh.json" || true
"$tfrig" -q --lang zh_CN doctor --snapshot "$data/snapshots/gpu_box_two_a100_old_driver.json" --format html -o "$out/doctor-zh.html" || true
"$tfrig" -q --lang zh_CN plan --model resnet50 --snapshot "$data/snapshots/gpu_box_two_a100_old_driver.json" --format json -o "plan-zh.json"
"$tfrig" -q --lang zh_CN plan --model resnet50 --snapshot "$data/snapshots/gpu_box_two_a100_old_driver.json" --format html -o "$out/plan-zh.html"

echo "browser_test: pages written (${SECONDS} s)"
# ---- each page: tidy, then the browser -------------------------------------
# chromium spends most of its ~2 s per run waiting, not computing: the four
# runs of a page go in parallel, two pages at a time.
shoot() {
  local name="$1"
  local url="file://$out/$name.html"
  local flags=(--headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars --disable-extensions
    --enable-logging=stderr --v=0)
  chromium "${flags[@]}" --user-data-dir="p-$name-dom" --dump-dom "$url" > "$out/$name.dom.html" 2> "$out/$name.log" &
  chromium "${flags[@]}" --user-data-dir="p-$name-1280" --window-size=1280,2000 --screenshot="$out/$name-1280.png" "$url" \
    > /dev/null 2> "$out/$name.1280.log" &
  chromium "${flags[@]}" --user-data-dir="p-$name-390" --window-size=390,2000 --screenshot="$out/$name-390.png" "$url" \
    > /dev/null 2> "$out/$name.390.log" &
  chromium "${flags[@]}" --user-data-dir="p-$name-pdf" --no-pdf-header-footer --print-to-pdf="$out/$name.pdf" "$url" \
    > /dev/null 2> "$out/$name.pdf.log" &
  wait
}

pages=(doctor doctor8 plan pipeline bench watch watchgpu fleet report doctor-zh plan-zh)
for ((i = 0; i < ${#pages[@]}; i += 2)); do
  shoot "${pages[i]}" &
  if [ $((i + 1)) -lt ${#pages[@]} ]; then shoot "${pages[i + 1]}" & fi
  wait
done
echo "browser_test: pages opened in chromium (${SECONDS} s)"

status=0
check() {
  local name="$1"
  shift
  local lang=en
  case "$name" in *-zh) lang=zh-CN ;; esac
  local page="$out/$name.html"
  local size
  size=$(stat -c %s "$page")
  # Under 1 MB (an 8-GPU machine's doctor page included).
  if [ "$size" -ge 1000000 ]; then
    echo "browser_test: $name.html is $size bytes (limit 1 MB)"
    status=1
  fi
  # tidy: 0 clean, 1 warnings, 2 errors; errors are what counts.
  local tidy_status=0
  tidy -q -e --show-warnings no "$page" > "$out/$name.tidy.txt" 2>&1 || tidy_status=$?
  if [ "$tidy_status" -ge 2 ]; then
    echo "browser_test: tidy finds errors in $name.html:"
    cat "$out/$name.tidy.txt"
    status=1
  fi
  local args=(--lang "$lang")
  for doc in "$@"; do args+=(--json "$doc"); done
  for log in "$out/$name".*log; do args+=(--log "$log"); done
  if ! "$python" "$src/tests/browser/check_page.py" "$out/$name.dom.html" "${args[@]}" \
      --png "$out/$name-1280.png" --png "$out/$name-390.png" --pdf "$out/$name.pdf"; then
    echo "browser_test: $name.html failed its checks (artifacts in $out)"
    status=1
  fi
}

check doctor "doctor.json"
check doctor8 "doctor8.json"
check plan "plan.json"
check pipeline "pipeline.json"
check bench
check watch "watch.json"
check watchgpu
check fleet "fleet.json"
check report "bench.json" "pipeline.json"
check doctor-zh "doctor-zh.json"
check plan-zh "plan-zh.json"
echo "browser_test: checked (${SECONDS} s)"
exit $status
