"""``torchrun -m skill_tools.harness.engines.proxy``: the engine's GPU side."""

import sys

from skill_tools.harness.engines.proxy.gpu import main

sys.exit(main())
