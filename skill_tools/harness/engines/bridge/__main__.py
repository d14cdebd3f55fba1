"""``torchrun -m skill_tools.harness.engines.bridge``: the engine's GPU side."""

import sys

from skill_tools.harness.engines.bridge.gpu import main

sys.exit(main())
