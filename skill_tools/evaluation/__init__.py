"""Score agent answers against ``evals/evals.json``.

Layers: ``extract`` (answer text -> CanonicalConfig, never executing anything), ``rubric``
(task checks and their explanations), ``score`` (answers -> scored results), ``report``
(JSON / Markdown / terminal table), ``execute`` (optional GPU proof), ``agent_run``
(collect answers from an agent CLI).
"""
