"""serve.py -- FastAPI front end for the MCore dynamic inference engine (megatron-core 0.19).

Decode runs under CUDA graphs from the MCore *local* graph manager:
  * cuda_graph_impl="local" on the model's TransformerConfig (set when the model is built;
    transformer_engine graphs are training-only and MCore allows only inference scope "none"
    with them, same for full_iteration),
  * block-scoped decode graphs (one graph per batch bucket around the whole decoder),
  * an explicit graph count -- InferenceConfig.num_cuda_graphs defaults to None = no graphs,
  * decode-only graphs, so prefill/mixed steps don't multiply graph memory.

Capture happens in the DynamicInferenceEngine constructor, so it is done once at startup,
inside the same torch.inference_mode() the request handlers use for replay.
"""

import logging

import torch
from fastapi import FastAPI
from pydantic import BaseModel

from megatron.core.inference.config import InferenceConfig
from megatron.core.inference.contexts.dynamic_context import DynamicInferenceContext
from megatron.core.inference.engines.dynamic_engine import DynamicInferenceEngine
from megatron.core.inference.model_inference_wrappers.gpt.gpt_inference_wrapper import (
    GPTInferenceWrapper,
)
from megatron.core.inference.sampling_params import SamplingParams
from megatron.core.inference.text_generation_controllers.text_generation_controller import (
    TextGenerationController,
)

from our_serving.model import load_model_and_tokenizer  # builds GPTModel with cuda_graph_impl="local"

log = logging.getLogger("serve")
app = FastAPI()
STATE = {}


class GenerateRequest(BaseModel):
    prompt: str
    max_new_tokens: int = 128


@app.on_event("startup")
def build_engine() -> None:
    model, tokenizer = load_model_and_tokenizer(
        cuda_graph_impl="local",
        use_te_rng_tracker=True,
        # MoE checkpoints: moe_pad_experts_for_cuda_graph_inference=True (required with EP > 1)
    )
    model.eval()

    inference_config = InferenceConfig(
        max_requests=64,
        num_cuda_graphs=-1,                          # automatic bucket count
        use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs
        inference_cuda_graph_scope="block",          # whole-block decode graphs
        logging_step_interval=100,                   # logs "cuda graph [N]" vs "cuda graph OFF" per step
    )

    with torch.inference_mode():
        context = DynamicInferenceContext(model.config, inference_config)
        controller = TextGenerationController(GPTInferenceWrapper(model, context), tokenizer)
        STATE["engine"] = DynamicInferenceEngine(controller, context)  # "> built cuda graph(s) in ..." here
    log.info("engine ready")


@app.post("/generate")
def generate(req: GenerateRequest):
    engine: DynamicInferenceEngine = STATE["engine"]
    with torch.inference_mode():  # same mode as capture
        results = engine.generate(
            prompts=[req.prompt],
            sampling_params=SamplingParams(num_tokens_to_generate=req.max_new_tokens),
        )
    return {"text": results[0].generated_text}
