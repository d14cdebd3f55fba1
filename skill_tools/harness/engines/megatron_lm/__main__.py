"""``torchrun -m skill_tools.harness.engines.megatron_lm``: the engine's GPU side."""

import sys

from skill_tools.harness.engines.megatron_lm.gpu import main

sys.exit(main())
