"""The examples run and check themselves (exit code 0: bit-identical)."""

import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, "examples")


@pytest.mark.parametrize("example", ["jacobi2d.py", "heat3d.py"])
@pytest.mark.parametrize("device", ["cpu", "emu"])
def test_example(example, device):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, example), "--device", device,
                          "--size", "24", "--steps", "4"], capture_output=True, text=True,
                         timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "bit-identical to NumPy: yes" in out.stdout
