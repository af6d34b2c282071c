#!/usr/bin/env python3
"""Runs tfrig's commands under LANG=zh_CN.UTF-8 on the test data and fails on a line that
still reads as English prose: a Chinese interface must not fall back to English for a message
somebody forgot to mark. What is English on purpose is dropped before the check: `code`, quoted
"text" (log lines, other programs' messages), URLs, paths, options, KEY=VALUE, file and library
names, identifiers (snake_case, dotted, CAPS, with digits) and the product and command names
below. Lines of a JSON dump are skipped.

HTML pages (--format html) are checked on their visible text: what the page folds away as raw
machine data (<details class="raw">: JSON field names and values, English by contract), style,
code and the fix commands are dropped first. A page built by `tfrig report` from JSON files quotes
the JSON's English prose, so it is only checked for the notice that says so.

usage: chinese_sweep.py TFRIG SOURCE_DIR"""
import os, re, subprocess, sys, tempfile
from html.parser import HTMLParser

CJK = re.compile(r'[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]')
# Dropped first: quoted kernel and log lines (explain's and doctor's evidence), a bug report's "FILE:LINE (section)", libjpeg's own message
# (JERR_NO_SOI), tfrig's commands ("tfrig bench memory"), `bench --list`'s benchmark ids, versions ("5.4.0-70-generic"), relative paths and
# slash lists, calls in code ("dataset.cache()"), CamelCase identifiers ("RmInitAdapter").
# "built for tests": the hand-made test snapshots' probe summaries, stored in English without messages
# (an older snapshot's texts print as stored, docs/snapshot.md), not a text of tfrig's.
DROP = [r'\bbuilt for tests\b', r'NVRM: .*', r'(?:日志行|内核消息)：.*', r'\btfrig(?: [a-z][\w-]*){1,2}', r'\S+:\d+ \([^()]*\)', r'Not a JPEG file: starts with \S+ \S+', r'^\s*(?:crc32c|memory|decode|storage|pcie|gemm): ',
        r'\b\d[\w.]*(?:-[\w.]+)+', r'\b[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.*~:+-]+)+/?',
        r'\b[\w.]+\([^()]*\)(?:\.[\w.]+\([^()]*\))*', r'\b[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+\b', r'\b\w+:/\S*', r'\{[^}]*\}', r'\b[a-z_]+(?:, ?[a-z_]+){3,}\b', r'\b\w+(?:,\w+)+\b', r'`[^`]*`', r'"[^"]*"', r"'[^']*'", r'“[^”]*”', r'https?://\S+', r'(?<![\w])[~.]?/[\w./*~:+-]*',
        r'(?<!\w)--?[\w-]+(=\S+)?', r'\b\w+=\S*', r'\b[\w.+-]*\.(py|sh|json|jsonl|yaml|yml|txt|csv|html|tfrecord|tfr|gz|tar|conf|list|cfg|deb|log|so)\b[\w.]*',
        r'\blib[\w+-]*\b', r'\b[A-Z][A-Z0-9_\-]+\b', r'\b\w*\d\w*\b', r'\b\w+_\w+\b', r'\b\w+(\.\w+)+\b', r'\b[a-z]+[A-Z]\w*\b', r'\b\w+(?:-\w+)+\b']
# Names that stay as they are in Chinese text (po/GLOSSARY.md): products, tools, commands, units;
# the last line: words of GPU catalog names (data), "NVIDIA A16 (per GPU; board has 4 GPUs)", "NVIDIA RTX
# 6000 Ada Generation"; tools named as sources; "host", the entity id findings carry in every language.
# Quoted kernel log lines ("NVRM: ...") are other programs' words.
ALLOW = set('''tfrig nvidia smi cuda cudnn tensorflow keras pip apt docker nvml pcie nvlink gpu gpus cpu cpus ram
tfrecord jpeg png numa xla tf python conda venv ubuntu debian linux kernel sudo bash json yaml csv html prometheus
grafana slurm kubernetes ansible systemd hbm dram ssd nvme hdd gib mib kib gb mb kb tb tib ms us ns fp tensor core
cores resnet bert vgg inception resnext efficientnet mobilenet transformer adam sgd epoch epochs batch fio stream
tjbench dcgm tpu tensorrt nccl mig xid ecc sxm aer irq intel amd epyc xeon ryzen geforce quadro tesla titan rtx
tee sysctl systemctl dpkg modprobe echo cat grep ldconfig install enable now restart wheel and cuda toolkit
container runtime compose dockerfile readme hub ngc tuna ustc aliyun ptx sass jit tfx nouveau hugepages swappiness
madvise never always performance powersave schedutil ondemand conservative persistenced fabricmanager gen x16
kvm virtio vmware xen hyper microsoft google amazon lambda dgx hgx nvswitch infiniband roce pytorch jax
numpy pandas absl grpc protobuf onednn mkl oneapi avx sse fma bf16 fp16 fp32 tf32 int8 float16 bfloat16 float32
mixed momentum adamw adafactor none selective full sgd rmsprop gauge counter doctor
per board has ada generation lspci sysfs host
et al red hat hugging face sh'''.split())

def english_left(text):
    bad = []
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith('{') or s.startswith('['):
            continue
        t = line
        for p in DROP:
            t = re.sub(p, ' ', t)
        words = [w for w in re.findall(r'[A-Za-z]{3,}', t) if w.lower() not in ALLOW]
        if CJK.search(line):
            # prose inside a Chinese line: a run of two or more English words (joined by blanks
            # or punctuation only) of which two are not allowed names: "(an earlier boot)",
            # "unknown hypervisor"; a single word next to Chinese is a name more often than not
            for run in re.findall(r'(?:\b[A-Za-z]{2,}\b[\s,():;.-]+)+\b[A-Za-z]{2,}\b', t):
                if sum(1 for w in re.findall(r'[A-Za-z]+', run) if w.lower() not in ALLOW) >= 2:
                    bad.append(line + '    <- ' + ' '.join(run.split())); break
        elif len(words) >= 2:
            bad.append(line)
    return bad

class VisibleText(HTMLParser):
    """The text a reader sees, one line per block element; raw data, code and style left out."""
    SKIP = {'script', 'style', 'code', 'pre'}
    BLOCK = {'p', 'div', 'tr', 'li', 'h1', 'h2', 'h3', 'h4', 'td', 'th', 'summary', 'caption', 'text', 'title', 'desc', 'nav', 'a'}
    def __init__(self):
        super().__init__()
        self.stack, self.out = [], []
    def skipping(self):
        return any(t in self.SKIP or t == 'details.raw' for t in self.stack)
    def handle_starttag(self, tag, attrs):
        if tag in ('meta', 'br', 'col', 'img', 'input', 'link', 'line', 'rect', 'path', 'circle', 'polyline'):
            return
        cls = dict(attrs).get('class') or ''
        self.stack.append('details.raw' if tag == 'details' and 'raw' in cls.split() else tag)
    def handle_endtag(self, tag):
        while self.stack:
            t = self.stack.pop()
            if t.split('.')[0] == tag:
                break
        if tag in self.BLOCK:
            self.out.append('\n')
    def handle_data(self, data):
        if not self.skipping():
            self.out.append(data)

def visible_text(page):
    p = VisibleText()
    p.feed(page)
    return ''.join(p.out)

def main():
    tfrig, src = sys.argv[1], sys.argv[2]
    d = lambda *p: os.path.join(src, 'tests', 'data', *p)
    snap = d('snapshots', 'gpu_box_two_a100_old_driver.json')
    scratch = tempfile.mkdtemp(prefix='tfrig-sweep-')
    # COLUMNS: one line a message (a product name or a quoted log line that
    # wraps would leave its English half alone on a line); layout has its own tests.
    env = dict(os.environ, LANG='zh_CN.UTF-8', LC_ALL='', LANGUAGE='', LC_MESSAGES='', COLUMNS='1000')
    # bench: crc32c measures, decode fails on a folder without a JPEG, pcie and gemm skip without a
    # driver (every kind of row and reason); one sample each, no history database.
    bench = ['bench', 'crc32c', 'decode', 'pcie', 'gemm', '--data', d('watch'), '--budget', '1', '--no-history']
    # pipeline on TFRecord shards with the time and cost of the run in yuan.
    pipeline = ['pipeline', '--data', d('tfrecord'), '--model', 'resnet50', '--gpu', 'NVIDIA GeForce RTX 4090', '--threads', '1',
                '--seconds', '0.1', '--no-pack', '--epochs', '2', '--rent', 'RTX 4090=1.98', '--currency', 'CNY']
    # plan with the time and money of a run (a price book in yuan, a rent and power on the command line).
    plan_cost = ['plan', '--model', 'resnet50', '--batch', '256', '--epochs', '30', '--prices', os.path.join(src, 'data', 'prices.cn.example.yaml'),
                 '--rent', 'RTX 4090 D=1.98', '--kwh', '0.8']
    runs = [
        ['--help'], ['doctor', '--help'], ['plan', '--help'], ['setup', '--help'],
        ['rules'], ['knowledge'], ['metrics'],
        ['doctor', '--snapshot', snap], ['doctor', '--snapshot', d('snapshots', 'eight_quadro_rtx5000.json')],
        ['doctor', '--snapshot', d('snapshots', 'cpu_box_cuda13.json')],
        ['doctor', '--snapshot', snap, '--explain', 'driver.too_old_for_cuda'],
        ['compat', '--tf', '2.15', '--driver', '470.82', '--gpu', 'cc:8.0'], ['compat', '--matrix'],
        ['plan', '--model', 'resnet50', '--batch', '256', '--gpus', '4'],
        ['plan', '--snapshot', snap, '--model', 'bert-large'],
        ['verify', d('tfrecord', 'tfx__cifar10_test.tfrecord')], ['inspect', d('tfrecord', 'tfx__cifar10_test.tfrecord')],
        ['watch', '--replay', d('watch', 'cpu-heavy.jsonl')], ['watch', '--replay', d('watch', 'io-heavy.jsonl')],
        ['setup', '--tf', '2.15', '--mirror', 'cn', '-o', os.path.join(scratch, 'setup')],
        ['fleet', d('snapshots', 'cpu_box_cuda13.json'), d('snapshots', 'eight_quadro_rtx5000.json'), snap],
        ['bench', '--list'], bench, pipeline,
        # explain on real logs: a TensorFlow OOM, NCCL's shared memory, a CUDA error 802 (fabric manager)
        ['explain', d('logs', 'tf-47820-oom-bfc.log')], ['explain', d('logs', 'nccl-290-shm-fallocate.log')],
        ['explain', d('logs', 'lisa-2823-nd96asr-802.log')],
        ['doctor', '--from', d('nvidia-bug-report', 'Andrewp2__laniusc.log.gz')],
        plan_cost, plan_cost + ['--steps', '1000', '--runs-per-month', '4', '--deadline', '1h', '--price-per-hour', '2'],
        ['doctor', '--from', d('nvidia-bug-report', 'Randy-jun__myautoconfig.log.gz')],
        ['import', '-o', os.path.join(scratch, 'imported.json'), d('nvidia-bug-report', 'Andrewp2__laniusc.log.gz')],
        ['report', '-o', os.path.join(scratch, 'r.html'), snap],
        # errors
        ['doctor', '--bogus'], ['plan', '--model', 'nosuch'], ['verify', os.path.join(scratch, 'none.tfrecord')],
        ['doctor', '--snapshot', os.path.join(scratch, 'none.json')], ['plan', '--batch', 'x'],
    ]
    html_runs = [
        ['doctor', '--snapshot', snap, '--format', 'html'],
        ['doctor', '--snapshot', d('snapshots', 'eight_quadro_rtx5000.json'), '--format', 'html'],
        ['doctor', '--from', d('nvidia-bug-report', 'Randy-jun__myautoconfig.log.gz'), '--format', 'html'],
        ['doctor', '--from', d('nvidia-bug-report', 'Andrewp2__laniusc.log.gz'), '--format', 'html'],
        ['plan', '--model', 'resnet50', '--batch', '256', '--format', 'html'],
        ['plan', '--snapshot', snap, '--model', 'bert-large', '--format', 'html'],
        ['fleet', d('snapshots', 'cpu_box_cuda13.json'), d('snapshots', 'eight_quadro_rtx5000.json'), snap, '--format', 'html'],
        ['watch', '--replay', d('watch', 'cpu-heavy.jsonl'), '--format', 'html'],
        bench + ['--format', 'html'], pipeline + ['--format', 'html'], plan_cost + ['--format', 'html'],
    ]
    failed = 0
    for args in html_runs:
        p = subprocess.run([tfrig] + args, env=env, capture_output=True, text=True, timeout=120)
        bad = english_left(visible_text(p.stdout)) if p.returncode in (0, 1, 2) else ['exit %d: %s' % (p.returncode, p.stderr[-300:])]
        if not p.stdout.lstrip().startswith('<!DOCTYPE html>'):
            bad.append('not an HTML page')
        if bad:
            failed += 1
            print('tfrig ' + ' '.join(a.replace(src + '/', '') for a in args) + ':')
            for b in bad:
                print('    ' + b)
    # A page from JSON files says that its prose is the JSON's English.
    json_out = subprocess.run([tfrig, 'doctor', '--snapshot', snap, '--format', 'json'], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, LANG='C.UTF-8', LC_ALL='', LANGUAGE='')).stdout
    with open(os.path.join(scratch, 'd.json'), 'w', encoding='utf-8') as f:
        f.write(json_out)
    p = subprocess.run([tfrig, 'report', '-o', '-', os.path.join(scratch, 'd.json')], env=env, capture_output=True, text=True, timeout=120)
    if 'class="notice"' not in p.stdout or not CJK.search(re.search(r'<p class="notice"[^>]*>([^<]*)', p.stdout).group(1)):
        failed += 1
        print('tfrig report (English JSON under zh_CN): the page does not say its prose is quoted English')
    for args in runs:
        p = subprocess.run([tfrig] + args, env=env, capture_output=True, text=True, timeout=120)
        out = p.stdout + p.stderr
        if os.path.isfile(os.path.join(scratch, 'setup', 'README.md')) and args[0] == 'setup':
            out += open(os.path.join(scratch, 'setup', 'README.md'), encoding='utf-8').read()
        bad = english_left(out)
        if bad:
            failed += 1
            print('tfrig ' + ' '.join(a.replace(src + '/', '') for a in args) + ':')
            for b in bad:
                print('    ' + b)
    subprocess.run(['rm', '-rf', scratch])
    if failed:
        print(f'{failed} command(s) print English prose under LANG=zh_CN.UTF-8: mark the texts (docs/i18n.md)')
        return 1
    print(f'{len(runs)} commands and {len(html_runs) + 1} HTML pages: no English prose left')
    return 0

if __name__ == '__main__':
    sys.exit(main())
