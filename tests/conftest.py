import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from five_towers_env import numerics

# The suite counts as a pinned process (five_towers_env/numerics.py): `train` and `expert` called in-process
# run here instead of starting again, and every command the tests start as a subprocess gets pinned kernels
# from its first import. tests/test_numerics.py clears these for the processes it forces onto other kernels.
os.environ.update(numerics.portable_environment())

# Without the native core (an install with no compiler, .ci/no_compiler.sh), every process would print the one
# line saying it is missing; the suite asks for the Python engines outright instead, so that the commands it
# starts keep a clean stderr (that line is .ci/no_compiler.sh's to check).
if not os.environ.get("FIVE_TOWERS_ENGINE"):
    from five_towers_env.core.backend import native_built

    if not native_built()[0]:
        os.environ["FIVE_TOWERS_ENGINE"] = "python"
