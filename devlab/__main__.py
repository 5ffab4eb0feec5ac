"""``python -m devlab``: the command line (``devlab --help`` lists the commands)."""
import sys

from .cli import main

sys.exit(main())
