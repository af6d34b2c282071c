#!/usr/bin/env python3
"""Runs tfrig's commands under LANG=zh_CN.UTF-8 on the test data and fails on a line that
still reads as English prose: a Chinese interface must not fall back to English for a message
somebody forgot to mark. What is English on purpose is dropped before the check: `code`, quoted
"text" (log lines, other programs' messages), URLs, paths, options, KEY=VALUE, file and library
names, identifiers (snake_case, dotted, CAPS, with digits) and the product and command names
below. Lines of a JSON dump are skipped.

usage: chinese_sweep.py TFRIG SOURCE_DIR"""
import os, re, subprocess, sys, tempfile

CJK = re.compile(r'[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]')
DROP = [r'\S+:\d+ \([^()]*\)', r'\b\w+:/\S*', r'\{[^}]*\}', r'\b[a-z_]+(?:, ?[a-z_]+){3,}\b', r'\b\w+(?:,\w+)+\b', r'`[^`]*`', r'"[^"]*"', r"'[^']*'", r'“[^”]*”', r'https?://\S+', r'(?<![\w])[~.]?/[\w./*~:+-]*',
        r'(?<!\w)--?[\w-]+(=\S+)?', r'\b\w+=\S*', r'\b[\w.+-]*\.(py|sh|json|jsonl|yaml|yml|txt|csv|html|tfrecord|tfr|gz|tar|conf|list|cfg|deb|log|so)\b[\w.]*',
        r'\blib[\w+-]*\b', r'\b[A-Z][A-Z0-9_\-]+\b', r'\b\w*\d\w*\b', r'\b\w+_\w+\b', r'\b\w+(\.\w+)+\b', r'\b[a-z]+[A-Z]\w*\b', r'\b\w+(?:-\w+)+\b']
# Names that stay as they are in Chinese text (po/GLOSSARY.md): products, tools, commands, units;
# the last line: words of GPU catalog names (data), "NVIDIA A16 (per GPU; board has 4 GPUs)".
ALLOW = set('''tfrig nvidia smi cuda cudnn tensorflow keras pip apt docker nvml pcie nvlink gpu gpus cpu cpus ram
tfrecord jpeg png numa xla tf python conda venv ubuntu debian linux kernel sudo bash json yaml csv html prometheus
grafana slurm kubernetes ansible systemd hbm dram ssd nvme hdd gib mib kib gb mb kb tb tib ms us ns fp tensor core
cores resnet bert vgg inception resnext efficientnet mobilenet transformer adam sgd epoch epochs batch fio stream
tjbench dcgm tpu tensorrt nccl mig xid ecc sxm aer irq intel amd epyc xeon ryzen geforce quadro tesla titan rtx
tee sysctl systemctl dpkg modprobe echo cat grep ldconfig install enable now restart wheel and cuda toolkit
container runtime compose dockerfile readme hub ngc tuna ustc aliyun ptx sass jit tfx nouveau hugepages swappiness
madvise never always performance powersave schedutil ondemand conservative persistenced fabricmanager gen x16
hypervisor kvm virtio vmware xen hyper microsoft google amazon lambda dgx hgx nvswitch infiniband roce pytorch jax
numpy pandas absl grpc protobuf onednn mkl oneapi avx sse fma bf16 fp16 fp32 tf32 int8 float16 bfloat16 float32
mixed momentum adamw adafactor none selective full sgd rmsprop gauge counter doctor
per board has'''.split())

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
            # a run of four or more English words inside a Chinese line
            for run in re.findall(r'(?:\b[A-Za-z]{2,}\b[\s,():;.-]+){3,}\b[A-Za-z]{2,}\b', t):
                if sum(1 for w in re.findall(r'[A-Za-z]+', run) if w.lower() not in ALLOW) >= 3:
                    bad.append(line); break
        elif len(words) >= 2:
            bad.append(line)
    return bad

def main():
    tfrig, src = sys.argv[1], sys.argv[2]
    d = lambda *p: os.path.join(src, 'tests', 'data', *p)
    snap = d('snapshots', 'gpu_box_two_a100_old_driver.json')
    scratch = tempfile.mkdtemp(prefix='tfrig-sweep-')
    # COLUMNS: one line a message (a product name or a quoted log line that
    # wraps would leave its English half alone on a line); layout has its own tests.
    env = dict(os.environ, LANG='zh_CN.UTF-8', LC_ALL='', LANGUAGE='', LC_MESSAGES='', COLUMNS='1000')
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
        ['bench', '--list'],
        ['doctor', '--from', d('nvidia-bug-report', 'Randy-jun__myautoconfig.log.gz')],
        ['import', '-o', os.path.join(scratch, 'imported.json'), d('nvidia-bug-report', 'Andrewp2__laniusc.log.gz')],
        ['report', '-o', os.path.join(scratch, 'r.html'), snap],
        # errors
        ['doctor', '--bogus'], ['plan', '--model', 'nosuch'], ['verify', os.path.join(scratch, 'none.tfrecord')],
        ['doctor', '--snapshot', os.path.join(scratch, 'none.json')], ['plan', '--batch', 'x'],
    ]
    failed = 0
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
    print(f'{len(runs)} commands: no English prose left')
    return 0

if __name__ == '__main__':
    sys.exit(main())
