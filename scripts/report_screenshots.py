#!/usr/bin/env python3
"""Makes the small PNGs of docs/report/ from the browser test's screenshots.

usage: scripts/report_screenshots.py BUILD/browser-artifacts docs/report
(after `ctest -R HtmlReportInBrowser`): the top of each page, scaled to 3/4
and reduced to 96 colours, so the repository carries tens of kB per picture.
Needs python3-pil (scripts/deps-report.txt).
"""
import sys

from PIL import Image

PAGES = {"doctor8-1280": "doctor-1280", "doctor8-390": "doctor-390", "plan-1280": "plan-1280",
         "pipeline-1280": "pipeline-1280", "bench-1280": "bench-1280", "watch-1280": "watch-1280",
         "fleet-1280": "fleet-1280", "doctor-zh-1280": "doctor-zh-1280"}


def main(src, dst):
    for name, out in PAGES.items():
        with Image.open(f"{src}/{name}.png") as img:
            img = img.convert("RGB")
            w, h = img.size
            top = img.crop((0, 0, w, min(h, 1400 if w > 400 else 1600)))
            small = top.resize((w * 3 // 4, top.size[1] * 3 // 4), Image.LANCZOS)
            small.quantize(colors=96, method=Image.MEDIANCUT).save(f"{dst}/{out}.png", optimize=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
