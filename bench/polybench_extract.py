#!/usr/bin/env python3
"""Cuts the kernel_* function out of each PolyBench/C 4.2 benchmark for bench/polybench.sh.

    bench/polybench_extract.py POLYBENCH_CODE_DIR OUT_DIR

Each benchmark is preprocessed as the issue describes (gcc -E -P -DPOLYBENCH_USE_C99_PROTO,
the SMALL and the LARGE dataset); the function is written unchanged from `void kernel_` to
its closing brace into OUT_DIR/NAME.c, after the benchmark's own file-scope typedefs (as
nussinov's `typedef char base;`) and two comments: `// run:` with the SMALL sizes
(what kernel_driver runs) and `// large:` with the LARGE ones, read from the initialisations
at the top of main(). Nothing of the suite is stored in this repository: run this on a
checkout of the suite (e.g. github.com/Meinersbur/polybench, folder polybench-code/).
"""
import os
import re
import subprocess
import sys


def preprocess(path, utilities, dataset):
    return subprocess.run(['gcc', '-E', '-P', '-DPOLYBENCH_USE_C99_PROTO',
                           '-D%s_DATASET' % dataset, '-I', utilities, path],
                          capture_output=True, text=True, check=True).stdout


def sizes(text):
    main = re.search(r'\bint\s+main\s*\([^)]*\)\s*\{', text)
    return re.findall(r'^\s*int\s+(\w+)\s*=\s*(\d+)\s*;', text[main.end():], re.M)


def kernel(text):
    start = re.search(r'\bvoid\s+kernel_\w+\s*\(', text)
    depth, i = 0, text.index('{', start.end())
    for j in range(i, len(text)):
        depth += {'{': 1, '}': -1}.get(text[j], 0)
        if depth == 0:
            return text[start.start():j + 1]
    raise ValueError('unbalanced braces')


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    utilities = os.path.join(src, 'utilities')
    os.makedirs(out, exist_ok=True)
    count = 0
    for root, _, files in sorted(os.walk(src)):
        for f in sorted(files):
            if not f.endswith('.c') or root == utilities or f.endswith('.orig.c'):
                continue
            path = os.path.join(root, f)
            small = preprocess(path, utilities, 'SMALL')
            large = preprocess(path, utilities, 'LARGE')
            with open(path) as fh:
                typedefs = re.findall(r'^typedef[^;]*;', fh.read(), re.M)
            with open(os.path.join(out, f), 'w') as fh:
                fh.write('// run: %s\n' % ' '.join('%s=%s' % kv for kv in sizes(small)))
                fh.write('// large: %s\n' % ' '.join('%s=%s' % kv for kv in sizes(large)))
                fh.write(''.join(t + '\n' for t in typedefs) + kernel(small) + '\n')
            count += 1
    print('%d kernels extracted into %s' % (count, out))


if __name__ == '__main__':
    main()
