#!/usr/bin/env python3
"""Independent reader for what `tfrig pack` writes.

Nothing here shares code with tfrig: the TFRecord framing and the masked
CRC-32C are implemented from the published format (TensorFlow's
record_writer.cc / "TFRecords format details" in the tf.data guide), the
Examples are decoded by Debian's python3-protobuf from tests/interop/
example.proto compiled with Debian's protoc, and one record is also decoded
with `protoc --decode`.

usage: read_tfrecord.py --src DATASET_DIR SHARD...
Checks every record's CRCs, that each Example's image/encoded equals the
source file named by image/filename, the label text is the class folder,
and that every source image appears exactly once. Prints a JSON summary;
exit status 0 when everything matches, 1 otherwise, 77 when protobuf or
protoc is missing (the test then skips).
"""
import argparse
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

# CRC-32C, reflected polynomial 0x82F63B78 (RFC 3720 B.4), bit by bit over a
# 256-entry table.
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = (crc >> 8) ^ _TABLE[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


def masked(crc):
    # tsl/lib/hash/crc32c.h Mask(): rotate right 15, add 0xa282ead8.
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def records(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    elif len(raw) >= 2 and raw[0] == 0x78 and ((raw[0] << 8) | raw[1]) % 31 == 0 and \
            not (len(raw) >= 12 and struct.unpack("<I", raw[8:12])[0] == masked(crc32c(raw[:8]))):
        raw = zlib.decompress(raw)
    pos = 0
    while pos < len(raw):
        if len(raw) - pos < 12:
            raise ValueError(f"{path}: truncated header at {pos}")
        length_bytes = raw[pos:pos + 8]
        (length,) = struct.unpack("<Q", length_bytes)
        (length_crc,) = struct.unpack("<I", raw[pos + 8:pos + 12])
        if length_crc != masked(crc32c(length_bytes)):
            raise ValueError(f"{path}: length CRC mismatch at {pos}")
        data = raw[pos + 12:pos + 12 + length]
        if len(data) != length or len(raw) < pos + 16 + length:
            raise ValueError(f"{path}: truncated record at {pos}")
        (data_crc,) = struct.unpack("<I", raw[pos + 12 + length:pos + 16 + length])
        if data_crc != masked(crc32c(data)):
            raise ValueError(f"{path}: data CRC mismatch at {pos}")
        yield pos, data
        pos += 16 + length


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("shards", nargs="+")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        import google.protobuf  # noqa: F401
    except ImportError:
        print("python3-protobuf is not installed", file=sys.stderr)
        return 77
    with tempfile.TemporaryDirectory() as gen:
        try:
            subprocess.run(["protoc", f"--proto_path={here}", f"--python_out={gen}", "example.proto"], check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"protoc failed: {e}", file=sys.stderr)
            return 77
        sys.path.insert(0, gen)
        import example_pb2  # generated

        problems = []
        seen = {}
        total = 0
        decoded_with_protoc = False
        for shard in args.shards:
            for offset, data in records(shard):
                total += 1
                ex = example_pb2.Example()
                ex.ParseFromString(data)
                f = ex.features.feature
                name = f["image/filename"].bytes_list.value[0].decode()
                seen[name] = seen.get(name, 0) + 1
                want = open(os.path.join(args.src, name), "rb").read()
                if f["image/encoded"].bytes_list.value[0] != want:
                    problems.append(f"{shard}@{offset}: image/encoded differs from {name}")
                cls = name.split("/")[0]
                if f["image/class/text"].bytes_list.value[0].decode() != cls:
                    problems.append(f"{shard}@{offset}: label text is not {cls}")
                for key in ("image/height", "image/width", "image/channels", "image/class/label"):
                    if len(f[key].int64_list.value) != 1:
                        problems.append(f"{shard}@{offset}: {key} is not one int64")
                if ex.SerializeToString(deterministic=True) != data:
                    problems.append(f"{shard}@{offset}: protobuf re-serialization differs from tfrig's bytes")
                if not decoded_with_protoc:
                    out = subprocess.run(["protoc", f"--proto_path={here}", "--decode=tensorflow.Example",
                                          "example.proto"], input=data, capture_output=True, check=True).stdout
                    if b'key: "image/filename"' not in out:
                        problems.append("protoc --decode did not show image/filename")
                    decoded_with_protoc = True
        images = []
        for root, _, files in os.walk(args.src):
            for fn in files:
                rel = os.path.relpath(os.path.join(root, fn), args.src)
                if not fn.startswith("."):
                    images.append(rel)
        for rel in images:
            if seen.get(rel, 0) != 1:
                problems.append(f"{rel}: packed {seen.get(rel, 0)} times")
        print(json.dumps({"records": total, "images": len(images), "problems": problems[:20]}))
        return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
