#!/usr/bin/env python3
"""Byte-flip trial: copies a file, changes one byte at many offsets, runs a loader on each copy
and counts how each run ended (loaded, refused, crashed, hung).

Usage: fuzz/byte_flip.py --file data.h5 --count 400 [--seed 1] -- LOADER [ARGS...]
The loader gets the corrupted copy's path as its last argument. Exit 0 counts as loaded, 1 as
refused (an error message), 2 as another exception (not a flashnerd::Error), a signal, another
code or a sanitizer report as a crash.
Exits 1 when any run crashed or hung. Offsets and byte values come from --seed (reproducible).
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", required=True, help="a valid input file")
    parser.add_argument("--count", type=int, default=400, help="corrupted copies to try")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds before a run counts as hung")
    parser.add_argument("--keep", help="directory to copy crashing inputs into")
    parser.add_argument("loader", nargs="+", help="loader command (after --)")
    args = parser.parse_args()

    original = open(args.file, "rb").read()
    rng = random.Random(args.seed)
    counts = {"loaded": 0, "refused": 0, "other exception": 0, "crashed": 0, "hung": 0}
    crashes = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "flipped" + os.path.splitext(args.file)[1])
        for i in range(args.count):
            offset = rng.randrange(len(original))
            value = original[offset] ^ rng.randrange(1, 256)  # always a different byte
            data = bytearray(original)
            data[offset] = value
            with open(path, "wb") as f:
                f.write(data)
            try:
                run = subprocess.run(args.loader + [path], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                counts["hung"] += 1
                crashes.append((offset, value, "hung"))
                continue
            # sanitizers and libFuzzer exit with their own codes; signals give rc < 0
            err = run.stderr.decode(errors="replace")
            crashed = run.returncode < 0 or run.returncode > 2 or "ERROR: AddressSanitizer" in err \
                or "runtime error:" in err or "deadly signal" in err
            if crashed:
                counts["crashed"] += 1
                crashes.append((offset, value, f"rc {run.returncode}"))
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    with open(os.path.join(args.keep, f"flip_{offset}_{value:02x}"), "wb") as f:
                        f.write(data)
            else:
                counts[["loaded", "refused", "other exception"][run.returncode]] += 1
    print(f"{args.count} one-byte flips of {args.file} ({len(original)} bytes, seed {args.seed}): "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for offset, value, how in crashes:
        print(f"  offset {offset} -> 0x{value:02x}: {how}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
