"""`python -m bench` from the repository root: every benchmark, one table (see run.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import main  # noqa: E402

main()
