"""The examples' command line: --device, --size, --steps."""

import argparse


def parse(doc, size, steps):
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--device", default="auto", help="auto, cpu, emu or cuda")
    ap.add_argument("--size", type=int, default=size)
    ap.add_argument("--steps", type=int, default=steps)
    return ap.parse_args()
