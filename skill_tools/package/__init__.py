"""The skill package itself: SKILL.md, card.yaml, skill-card.md, BENCHMARK.md, the plugin manifest,
and the lint that holds them to the Agent Skills format and the NVIDIA/skills catalog.

``skill-tools card sync`` writes the generated parts (:mod:`.card`, :mod:`.card_compact`,
:mod:`.card_results`, :mod:`.benchmark_md`, :mod:`.skill_card`, :mod:`.plugin_manifest`);
``skill-tools lint`` checks them (:mod:`.lint`).
"""
