# Short answer: no. Activation CPU offloading and TE CUDA graphs on attn cannot be combined.
# Pick one of them; the scenarios below spell out what megatron-core does and the two ways out.

Feature: Activation CPU offloading together with TE CUDA graphs

  Background:
    Given a model config with cpu_offloading=True and cpu_offloading_num_layers=4
    And cuda_graph_impl="transformer_engine" graphing the "attn" module

  Scenario: megatron-core 0.16 or 0.17
    When TransformerConfig.__post_init__ runs
    Then it raises ValueError "CUDA graphs not supported with CPU offloading."
    # 0.16-0.17 reject offloading with every graph impl (local and transformer_engine alike)

  Scenario: megatron-core 0.18 or newer
    When TransformerConfig.__post_init__ runs
    Then it raises ValueError "CUDA graphs not supported with CPU offloading."
    # 0.18+ only lets cuda_graph_impl="full_iteration" past this check; per-layer
    # transformer_engine and local graphs are still refused, and Megatron Bridge's CUDA-graph
    # guide lists CPU offloading as incompatible. So this does not work in any era.

  Scenario: Way out 1 - keep the graphs, drop activation offloading
    Given cpu_offloading=False
    And the memory saved by offloading is recovered another way:
      | option                           | note                                                       |
      | selective recompute              | e.g. recompute_modules=["layernorm","mlp"] outside the graph |
      | optimizer CPU offload            | optimizer states, not activations; not part of this check  |
      | smaller micro-batch / more TP/PP | plain memory levers                                        |
    And use_te_rng_tracker=True and rng.te_rng_tracker=True
    Then TE graphs on attn validate
    And peak memory must still leave headroom for the static graph buffers

  Scenario: Way out 2 - keep activation offloading, leave graphs off
    Given cuda_graph_impl="none"
    Then offloading works as before
    # If memory was the reason you turned on offloading, this is often the right call:
    # graphs cost memory, they never save it.
