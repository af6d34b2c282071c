#!/usr/bin/env python3
"""Checks one HTML report page as the browser saw it (tests/browser/browser_test.sh).

usage: check_page.py DOM.html [--json DOC.json]... [--png FILE.png]... [--pdf FILE.pdf]... [--log CHROMIUM.log]
                     [--lang TAG]

DOM.html is chromium's --dump-dom of the page. Every string and number of each
JSON document must be in the DOM's text (the page shows all of the JSON
output); the DOM must not reference anything outside the file; each PNG must
be a picture of something (not one colour, sane size); each PDF must be a PDF
of sane size; the browser log must hold no console message and no refused
load (a Content-Security-Policy violation is how a fetch would show).
With --lang the page must say so (<html lang="TAG">) and its section headings
must be in that language: Chinese characters in each for zh-*, none for en.
"""
import html
import json
import re
import sys


def fail(msg):
    print("check_page: " + msg, file=sys.stderr)
    sys.exit(1)


class RawNumber(str):
    """A JSON number as the file spells it: nlohmann::json writes some doubles
    with 16-17 digits (0.009617763999999999) that Python would write shorter,
    and the page shows the C++ spelling."""


def leaves(value, out):
    if isinstance(value, RawNumber):
        out.append(("number", str(value)))
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(("key", k))
            leaves(v, out)
    elif isinstance(value, list):
        for v in value:
            leaves(v, out)
    elif isinstance(value, str):
        out.append(("string", value))
    elif isinstance(value, bool) or value is None:
        pass
    else:
        # As nlohmann::json writes it (the page shows the JSON's own digits).
        out.append(("number", json.dumps(value)))


def text_of(dom):
    # Entities decoded, tags kept: the check looks for values, not markup.
    return html.unescape(dom)


def check_dom(dom, docs):
    text = text_of(dom)
    for path in docs:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f, parse_float=RawNumber)
        items = []
        leaves(doc, items)
        missing = [f"{kind} {value!r}" for kind, value in items if value not in text]
        if missing:
            fail(f"{path}: {len(missing)} of {len(items)} values are not on the page, e.g. " + "; ".join(missing[:5]))
        print(f"check_page: {path}: all {len(items)} keys, strings and numbers are on the page")
    # Nothing outside the file: no src= at all, no external stylesheet, no url() in CSS.
    for pattern in (r"<script", r"\ssrc\s*=", r"<link\b", r"url\(", r"@import", r"<iframe", r"<object", r"<embed"):
        if re.search(pattern, dom, re.I):
            fail(f"the page holds {pattern}: it could fetch something")
    if "Content-Security-Policy" not in dom or "default-src 'none'" not in dom:
        fail("no Content-Security-Policy forbidding fetches")


def check_png(path):
    from PIL import Image  # python3-pil (scripts/deps-report.txt)

    with Image.open(path) as img:
        width, height = img.size
        small = img.convert("RGB").resize((width // 4, height // 4))
    colours = small.getcolors(maxcolors=1 << 20) or []
    total = sum(count for count, _ in colours)
    white = sum(count for count, rgb in colours if rgb == (255, 255, 255))
    share = 1 - white / max(total, 1)
    if len(colours) < 8 or share < 0.02:
        fail(f"{path}: looks blank ({len(colours)} colours, {share:.1%} not white)")
    print(f"check_page: {path}: {width}x{height}, {len(colours)} colours, {share:.0%} not white")


def check_pdf(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"%PDF-"):
        fail(f"{path}: not a PDF")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    if len(data) < 8000 or len(data) > 20_000_000 or pages < 1:
        fail(f"{path}: {len(data)} bytes, {pages} pages: not a sane size")
    print(f"check_page: {path}: {len(data)} bytes, {pages} pages")


def check_log(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        log = f.read()
    bad = [line for line in log.splitlines()
           if "CONSOLE" in line or "Refused to" in line or "Content Security Policy" in line or "Uncaught" in line]
    if bad:
        fail(f"{path}: the browser reported: " + " | ".join(bad[:5]))


def has_chinese(text):
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def check_lang(dom, tag):
    if not re.search(r'<html[^>]*\slang="' + re.escape(tag) + '"', dom):
        fail(f'the page does not say <html lang="{tag}">')
    headings = [html.unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<h2\b[^>]*>(.*?)</h2>", dom, re.S)]
    if not headings:
        fail("no section headings")
    chinese = tag.startswith("zh")
    wrong = [h for h in headings if has_chinese(h) != chinese]
    if wrong:
        fail(f"headings not in {tag}: " + "; ".join(wrong[:5]))
    print(f"check_page: lang {tag}, {len(headings)} headings in it")


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    dom_path = argv[1]
    docs, pngs, pdfs, logs, langs = [], [], [], [], []
    i = 2
    while i < len(argv):
        flag, value = argv[i], argv[i + 1]
        {"--json": docs, "--png": pngs, "--pdf": pdfs, "--log": logs, "--lang": langs}[flag].append(value)
        i += 2
    with open(dom_path, encoding="utf-8") as f:
        dom = f.read()
    if "</html>" not in dom or len(dom) < 2000:
        fail(f"{dom_path}: the browser's DOM is cut or empty ({len(dom)} bytes)")
    check_dom(dom, docs)
    for tag in langs:
        check_lang(dom, tag)
    for p in pngs:
        check_png(p)
    for p in pdfs:
        check_pdf(p)
    for p in logs:
        check_log(p)


if __name__ == "__main__":
    main(sys.argv)
