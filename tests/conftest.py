import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from five_towers_env import numerics

# The suite counts as a pinned process (five_towers_env/numerics.py): `train` and `expert` called in-process
# run here instead of starting again, and every command the tests start as a subprocess gets pinned kernels
# from its first import. tests/test_numerics.py clears these for the processes it forces onto other kernels.
os.environ.update(numerics.portable_environment())
