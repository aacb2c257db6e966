"""What the random tests share: their command line, and one `stenciljit run --check` and its
verdict."""
import os
import random
import subprocess
import sys
import tempfile


def seeds(prefix):
    """The command line STENCILJIT FIRST_SEED COUNT [WORK_DIR] as (STENCILJIT, draws): for each
    seed its generator, its kernel's name (prefix and seed) and the file to write it to."""
    cli, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    work = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp(prefix=f"sj-{prefix}-")
    os.makedirs(work, exist_ok=True)
    return cli, [(random.Random(s), f"{prefix}{s}", os.path.join(work, f"{prefix}{s}.c"))
                 for s in range(first, first + count)]


def check(cmd, src, name, refusable=False):
    """Runs cmd (a `stenciljit run ... --check` command line) with the disk cache off and isl's
    check of the tilings on; prints a line, and on failure the source and the output. True when
    the result is bit-identical, or when refusable and a forced tiling was refused."""
    env = dict(os.environ, JIT_CHECK_TILES="1", JIT_CACHE="off")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    out = p.stdout + p.stderr
    refused = refusable and p.returncode == 3 and "does not apply" in out
    ok = (p.returncode == 0 and "bit-identical to the reference" in out) or refused
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {' '.join(cmd[3:])}"
          f"{' (tiling refused)' if refused else ''}", flush=True)
    if not ok:
        print(src + "\n".join(line for line in out.splitlines() if not line.startswith("  ")))
    return ok
