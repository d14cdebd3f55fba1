"""Read Megatron-LM / Megatron Bridge training logs: parse, steady-state stats, eager-vs-graph
comparison and failure diagnosis. Pure Python; never imports torch or megatron."""
