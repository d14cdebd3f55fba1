*** Settings ***
Documentation     Can the MoE block itself be CUDA-graphed? Yes, with drop-and-pad.
...               With moe_expert_capacity_factor=1.0 and moe_pad_expert_input_to_capacity=True every
...               expert gets a fixed, padded number of tokens, so the MoE MLP has static shapes and
...               no host sync for token counts. MCore then allows the "moe" module with
...               cuda_graph_impl=transformer_engine.
...
...               Rules (checked in TransformerConfig.__post_init__):
...               1. "moe" needs drop-and-pad: capacity factor set AND pad-to-capacity True, else
...                  "moe cuda graph is only supported with drop-padding MoE."
...               2. "moe" must not be combined with "moe_router" (so no "moe_preprocess" either,
...                  since that needs moe_router): "... must not contain both moe and moe_router."
...               3. "moe" needs a real MoE model (num_moe_experts > 1).
...               4. TE RNG tracker on (model.use_te_rng_tracker and rng.te_rng_tracker).
...               5. Static seq_length and micro-batch size; compare post-capture steps with eager.
...               Key name: cuda_graph_modules on megatron-core 0.18+, cuda_graph_scope on 0.16-0.17.
Library           Process

*** Variables ***
@{OVERRIDES_019}    model.moe_expert_capacity_factor=1.0
...                 model.moe_pad_expert_input_to_capacity=true
...                 model.cuda_graph_impl=transformer_engine
...                 model.cuda_graph_scope=null
...                 model.cuda_graph_modules=[attn,moe]
...                 model.cuda_graph_warmup_steps=3
...                 model.use_te_rng_tracker=true
...                 rng.te_rng_tracker=true
@{OVERRIDES_016}    model.moe_expert_capacity_factor=1.0
...                 model.moe_pad_expert_input_to_capacity=true
...                 model.cuda_graph_impl=transformer_engine
...                 model.cuda_graph_scope=[attn,moe]
...                 model.cuda_graph_warmup_steps=3
...                 model.use_te_rng_tracker=true
...                 rng.te_rng_tracker=true

*** Test Cases ***
MoE Block Graph Validates And Captures On 0.18+
    ${r}=    Run Process    python    train.py    @{OVERRIDES_019}    train.train_iters=20
    Should Be Equal As Integers    ${r.rc}    0
    Should Contain    ${r.stdout}    Start CUDA Graphs capture

MoE Block Graph Validates And Captures On 0.16-0.17
    ${r}=    Run Process    python    train.py    @{OVERRIDES_016}    train.train_iters=20
    Should Be Equal As Integers    ${r.rc}    0

Moe Together With Moe Router Is Rejected
    ${r}=    Run Process    python    train.py    @{OVERRIDES_019}    model.cuda_graph_modules=[attn,moe,moe_router]
    Should Not Be Equal As Integers    ${r.rc}    0
    Should Contain    ${r.stderr}    must not contain both moe and moe_router

Moe Without Padding Is Rejected
    ${r}=    Run Process    python    train.py    @{OVERRIDES_019}    model.moe_pad_expert_input_to_capacity=false
    Should Not Be Equal As Integers    ${r.rc}    0
    Should Contain    ${r.stderr}    moe cuda graph is only supported with drop-padding MoE
