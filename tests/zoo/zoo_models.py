"""The model zoo of issue 21: real architectures from torchvision, Hugging Face transformers
and timm, each built with random weights (a fixed seed), a small configuration written here
(nothing is downloaded: no weights, no configs, no tokenizers) and example inputs.

Every entry builds a `Built`: a module whose forward takes the example inputs positionally and
returns one tensor, so an exported program has plain tensor inputs and one tensor output, which
is what the C++ reader's tests compare. Hugging Face models return `ModelOutput` objects and
take keyword arguments; `PickField` adapts them.

Language models are registered twice: `NAME` (eval mode, returns the logits) and `NAME_train`
(train mode, forward with `labels`, returns the loss), the training-style program whose
gradients the reader's tests compare. Every dropout probability is 0 so that the training-style
programs are deterministic and comparable with PyTorch: their `dropout` nodes stay in the
exported program (NAME.pt2), and the core-ATen form (NAME.core.pt2) drops them as the identity.

Sizes are tiny for the transformers (2 layers, hidden 64, 4 heads, vocabulary 1000, batch 2,
sequence 16): the C++ reader needs the architectures' op mixes, masks and shapes, not their
widths. torchvision's models keep their real widths and depths (ResNet-50 is ResNet-50) with 10
classes and 64x64 images, so the reader also meets archives of realistic size.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import torch
from torch import nn

SEED = 0
BATCH = 2
SEQ = 16
VOCAB = 1000
IMAGE = 64
CLASSES = 10


@dataclasses.dataclass
class Built:
    module: nn.Module
    inputs: dict[str, torch.Tensor]  # in the order forward takes them
    train: bool = False  # export in train mode (the training-style programs)
    # Dynamic dims: input name -> {dim: (symbol name, min, max)}; empty for a static program.
    dynamic: dict[str, dict[int, tuple[str, int, int]]] = dataclasses.field(default_factory=dict)
    # For a dynamic program, inputs of other sizes within its ranges: the reader's tests run
    # the imported program at a size it was not traced at.
    other_inputs: dict[str, torch.Tensor] | None = None


@dataclasses.dataclass(frozen=True)
class ZooModel:
    name: str
    family: str  # torchvision, transformers or timm
    build_fn: Callable[[], Built]
    note: str = ""

    def build(self) -> Built:
        """Builds the model and its inputs from the same seed every time, so reference outputs
        are reproducible and a re-export of an unchanged entry gives the same weights."""
        torch.manual_seed(SEED)
        built = self.build_fn()
        built.module.train(built.train)
        return built


ZOO: dict[str, ZooModel] = {}


def register(name: str, family: str, build_fn: Callable[[], Built], note: str = "") -> None:
    assert name not in ZOO, f"zoo entry {name} registered twice"
    ZOO[name] = ZooModel(name, family, build_fn, note)


class PickField(nn.Module):
    """Calls a Hugging Face model with keyword arguments named `input_names` and returns one
    field of its output (`logits`, `loss`, `last_hidden_state`): the exported program then has
    positional tensor inputs and a single tensor output."""

    def __init__(self, model: nn.Module, input_names: list[str], field: str):
        super().__init__()
        self.model = model
        self.input_names = list(input_names)
        self.field = field

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        output = self.model(**dict(zip(self.input_names, inputs)))
        return output[self.field] if isinstance(output, dict) else getattr(output, self.field)


class DictOut(nn.Module):
    """torchvision's segmentation models return {"out": ...}; keep the main head."""

    def __init__(self, model: nn.Module, key: str):
        super().__init__()
        self.model = model
        self.key = key

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)[self.key]


def image_batch(size: int = IMAGE, channels: int = 3,
                batch: int = BATCH) -> dict[str, torch.Tensor]:
    return {"pixel_values": torch.randn(batch, channels, size, size)}


def token_batch(vocab: int = VOCAB, seq: int = SEQ, batch: int = BATCH) -> dict[str, torch.Tensor]:
    """Token ids with an attention mask that pads the second sequence's last 3 positions
    (right padding: every query still sees at least one key, so no softmax row is fully
    masked and the reference output has no NaN or arbitrary fill)."""
    input_ids = torch.randint(1, vocab, (batch, seq))
    attention_mask = torch.ones(batch, seq, dtype=torch.long)
    attention_mask[1, -3:] = 0
    return {"input_ids": input_ids, "attention_mask": attention_mask}


def encoder_decoder_batch(first_token: int) -> dict[str, torch.Tensor]:
    """A source batch and SEQ // 2 decoder tokens at or above `first_token` (below it are the
    model's special tokens)."""
    decoder_input_ids = torch.randint(first_token, VOCAB, (BATCH, SEQ // 2))
    return {**token_batch(), "decoder_input_ids": decoder_input_ids}


def with_labels(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The inputs of a training step, labels as a trainer makes them. A decoder-only or masked
    LM predicts its own tokens, -100 (ignored) where padded; an encoder-decoder predicts the
    decoder's tokens, which transformers shifts right into the decoder's inputs itself."""
    inputs = dict(inputs)
    if "decoder_input_ids" in inputs:
        inputs["labels"] = inputs.pop("decoder_input_ids")
    else:
        inputs["labels"] = inputs["input_ids"].masked_fill(inputs["attention_mask"] == 0, -100)
    return inputs


def randomize_zero_weights(model: torch.nn.Module) -> torch.nn.Module:
    """Gives a weight matrix that its library initializes to zeros random values: torchvision's
    ViT and timm's Mixer zero their classifier heads, so their output would be all zeros and any
    graph ending in that head would match it (docs/IMPORT.md)."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not torch.any(p):
                torch.nn.init.normal_(p, std=0.02)
    return model


# ---- torchvision: real architectures, random weights, 10 classes, 64x64 images ----

def torchvision_classifier(builder_name: str, size: int = IMAGE, **kwargs) -> Callable[[], Built]:
    def build() -> Built:
        import torchvision.models as models
        model = randomize_zero_weights(getattr(models, builder_name)(weights=None, num_classes=CLASSES, **kwargs))
        return Built(model, {"x": image_batch(size)["pixel_values"]})
    return build


def deeplabv3_mobilenet() -> Built:
    from torchvision.models import segmentation
    model = segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                      num_classes=CLASSES, aux_loss=False)
    return Built(DictOut(model, "out"), {"x": image_batch()["pixel_values"]})


def fcn_resnet50() -> Built:
    from torchvision.models import segmentation
    model = segmentation.fcn_resnet50(weights=None, weights_backbone=None, num_classes=CLASSES,
                                      aux_loss=False)
    return Built(DictOut(model, "out"), {"x": image_batch()["pixel_values"]})


TORCHVISION_CLASSIFIERS = [
    # (zoo name, torchvision builder, image size, keyword arguments)
    ("resnet50", "resnet50", IMAGE, {}),
    ("resnet18", "resnet18", IMAGE, {}),
    ("mobilenet_v3_large", "mobilenet_v3_large", IMAGE, {}),
    ("mobilenet_v2", "mobilenet_v2", IMAGE, {}),
    ("efficientnet_b0", "efficientnet_b0", IMAGE, {}),
    ("convnext_tiny", "convnext_tiny", IMAGE, {}),
    # ViT-B/16 at 64x64: 16 patches plus the class token; the position embedding is sized to it.
    ("vit_b_16", "vit_b_16", IMAGE, {"image_size": IMAGE}),
    ("swin_t", "swin_t", IMAGE, {}),
    ("regnet_y_400mf", "regnet_y_400mf", IMAGE, {}),
    ("densenet121", "densenet121", IMAGE, {}),
    ("shufflenet_v2_x0_5", "shufflenet_v2_x0_5", IMAGE, {}),
    ("squeezenet1_1", "squeezenet1_1", IMAGE, {}),
    ("mnasnet0_5", "mnasnet0_5", IMAGE, {}),
]
for zoo_name, builder, size, kwargs in TORCHVISION_CLASSIFIERS:
    register(zoo_name, "torchvision", torchvision_classifier(builder, size, **kwargs))
register("deeplabv3_mobilenet_v3", "torchvision", deeplabv3_mobilenet)
register("fcn_resnet50", "torchvision", fcn_resnet50)


# ---- transformers: tiny configs (2 layers, hidden 64, 4 heads, vocabulary 1000) ----

TINY_DECODER = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                    use_cache=False, pad_token_id=0, bos_token_id=1, eos_token_id=2)


def hf_config(config_name: str, **fields):
    import transformers
    return getattr(transformers, config_name)(**fields)


def hf_model(model_name: str, config):
    import transformers
    return getattr(transformers, model_name)(config)


def register_language_model(name: str, model_name: str, config_fn: Callable[[], object],
                            inputs_fn: Callable[[], dict[str, torch.Tensor]] = token_batch,
                            note: str = "") -> None:
    """Registers NAME (eval mode, logits) and NAME_train (train mode, labels in, loss out)."""

    def build_eval() -> Built:
        model = hf_model(model_name, config_fn())
        inputs = inputs_fn()
        return Built(PickField(model, list(inputs), "logits"), inputs)

    def build_train() -> Built:
        model = hf_model(model_name, config_fn())
        inputs = with_labels(inputs_fn())
        return Built(PickField(model, list(inputs), "loss"), inputs, train=True)

    register(name, "transformers", build_eval, note)
    register(name + "_train", "transformers", build_train, note)


def hf_field(model: nn.Module, inputs: dict[str, torch.Tensor], field: str) -> Built:
    return Built(PickField(model, list(inputs), field), inputs)


def gpt2_config(attn_implementation: str = "sdpa"):
    config = hf_config("GPT2Config", vocab_size=VOCAB, n_positions=128, n_embd=64, n_layer=2,
                       n_head=4, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False,
                       bos_token_id=1, eos_token_id=2)
    config._attn_implementation = attn_implementation
    return config


def bert_like(config_name: str, **extra):
    return lambda: hf_config(config_name, vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2,
                             num_attention_heads=4, intermediate_size=128,
                             max_position_embeddings=128, hidden_dropout_prob=0.0,
                             attention_probs_dropout_prob=0.0, **extra)


def distilbert_config():
    return hf_config("DistilBertConfig", vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4,
                     hidden_dim=128, max_position_embeddings=128, dropout=0.0,
                     attention_dropout=0.0)


def decoder_config(config_name: str, **extra):
    return lambda: hf_config(config_name, **{**TINY_DECODER, **extra})


def t5_config():
    return hf_config("T5Config", vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                     num_heads=4, dropout_rate=0.0, use_cache=False, pad_token_id=0,
                     eos_token_id=1, decoder_start_token_id=0)


def bart_config():
    return hf_config("BartConfig", vocab_size=VOCAB, d_model=64, encoder_layers=2,
                     decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                     encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=128,
                     dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, use_cache=False,
                     pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2)


register_language_model("gpt2", "GPT2LMHeadModel", gpt2_config)
# The same GPT-2 with transformers' eager attention: matmul, masked fill with the dtype's
# minimum, softmax, matmul, written out (the other attention form the reader must fuse).
register_language_model("gpt2_eager", "GPT2LMHeadModel", lambda: gpt2_config("eager"))
register_language_model("bert", "BertForMaskedLM", bert_like("BertConfig"))
register_language_model("roberta", "RobertaForMaskedLM", bert_like("RobertaConfig", pad_token_id=1))
register_language_model("distilbert", "DistilBertForMaskedLM", distilbert_config)
# Encoder-decoder models read a source sequence and half as many decoder tokens (teacher
# forcing); their training-style program takes those tokens as labels instead (with_labels).
register_language_model("t5", "T5ForConditionalGeneration", t5_config,
                        inputs_fn=lambda: encoder_decoder_batch(first_token=1))
register_language_model("bart", "BartForConditionalGeneration", bart_config,
                        inputs_fn=lambda: encoder_decoder_batch(first_token=3))
register_language_model("llama", "LlamaForCausalLM", decoder_config("LlamaConfig"))
register_language_model("mistral", "MistralForCausalLM",
                        decoder_config("MistralConfig", sliding_window=8))
register_language_model("qwen2", "Qwen2ForCausalLM", decoder_config("Qwen2Config"))
register_language_model("phi3", "Phi3ForCausalLM",
                        decoder_config("Phi3Config", resid_pdrop=0.0, embd_pdrop=0.0))
register_language_model("gemma", "GemmaForCausalLM", decoder_config("GemmaConfig", head_dim=16))
# Mixtures of experts: routing (top-k, softmax over the chosen experts) and expert dispatch.
# transformers' default experts implementation on the CPU is its custom op
# `transformers::grouped_mm_fallback` (a non-ATen node in the archive; loading the archive in
# Python needs transformers imported); "batched_mm" gathers each token's experts' weights and
# runs bmm, pure ATen. "eager" loops over the experts hit, a data-dependent loop that
# torch.export refuses.
register_language_model("mixtral", "MixtralForCausalLM",
                        decoder_config("MixtralConfig", num_local_experts=4, num_experts_per_tok=2))
register_language_model("mixtral_batched_mm", "MixtralForCausalLM",
                        decoder_config("MixtralConfig", num_local_experts=4, num_experts_per_tok=2,
                                       experts_implementation="batched_mm"))
register_language_model("qwen2_moe", "Qwen2MoeForCausalLM",
                        decoder_config("Qwen2MoeConfig", num_experts=4, num_experts_per_tok=2,
                                       moe_intermediate_size=64,
                                       shared_expert_intermediate_size=128))


def hf_vit() -> Built:
    config = hf_config("ViTConfig", hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                       intermediate_size=128, image_size=32, patch_size=8, num_labels=CLASSES,
                       hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    inputs = image_batch(32)
    return hf_field(hf_model("ViTForImageClassification", config), inputs, "logits")


def clip_text() -> Built:
    config = hf_config("CLIPTextConfig", vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                       projection_dim=32, num_hidden_layers=2, num_attention_heads=4,
                       max_position_embeddings=SEQ, pad_token_id=0, bos_token_id=1,
                       eos_token_id=2)
    inputs = token_batch()
    return hf_field(hf_model("CLIPTextModel", config), inputs, "pooler_output")


def clip_vision() -> Built:
    config = hf_config("CLIPVisionConfig", hidden_size=64, intermediate_size=128,
                       projection_dim=32, num_hidden_layers=2, num_attention_heads=4,
                       image_size=32, patch_size=8)
    inputs = image_batch(32)
    return hf_field(hf_model("CLIPVisionModel", config), inputs, "pooler_output")


def whisper_encoder() -> Built:
    # The encoder checks that its input has 2 * max_source_positions frames (its two
    # convolutions, the second of stride 2, halve them).
    config = hf_config("WhisperConfig", vocab_size=VOCAB, num_mel_bins=16, d_model=64,
                       encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=128,
                       decoder_layers=2, decoder_attention_heads=4, decoder_ffn_dim=128,
                       max_source_positions=32, max_target_positions=32, dropout=0.0,
                       attention_dropout=0.0, activation_dropout=0.0, use_cache=False,
                       pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    encoder = hf_model("WhisperModel", config).get_encoder()
    inputs = {"input_features": torch.randn(BATCH, 16, 64)}
    return hf_field(encoder, inputs, "last_hidden_state")


def gpt2_dynamic() -> Built:
    """GPT-2 exported with a dynamic batch and sequence length: the program's views and
    aranges take symbolic sizes, and its range constraints reach the archive."""
    inputs = token_batch()
    model = hf_model("GPT2LMHeadModel", gpt2_config())
    dims = {0: ("batch", 1, 16), 1: ("seq", 2, 128)}
    return Built(PickField(model, list(inputs), "logits"), inputs,
                 dynamic={"input_ids": dims, "attention_mask": dims},
                 other_inputs=token_batch(batch=3, seq=9))


def resnet18_dynamic_batch() -> Built:
    import torchvision.models as models
    inputs = {"x": image_batch()["pixel_values"]}
    return Built(models.resnet18(weights=None, num_classes=CLASSES), inputs,
                 dynamic={"x": {0: ("batch", 1, 64)}},
                 other_inputs={"x": image_batch(batch=5)["pixel_values"]})


register("gpt2_dynamic", "transformers", gpt2_dynamic)
register("resnet18_dynamic", "torchvision", resnet18_dynamic_batch)
register("hf_vit", "transformers", hf_vit)
register("clip_text", "transformers", clip_text)
register("clip_vision", "transformers", clip_vision)
register("whisper_encoder", "transformers", whisper_encoder)


# ---- timm: a few of its own architectures, random weights, small images ----

def timm_model(timm_name: str, size: int = IMAGE, **kwargs) -> Callable[[], Built]:
    def build() -> Built:
        import timm
        model = randomize_zero_weights(timm.create_model(timm_name, pretrained=False, num_classes=CLASSES, **kwargs))
        return Built(model, {"x": image_batch(size)["pixel_values"]})
    return build


register("timm_vit_tiny", "timm", timm_model("vit_tiny_patch16_224", img_size=IMAGE))
register("timm_convnext_atto", "timm", timm_model("convnext_atto"))
register("timm_resnet18d", "timm", timm_model("resnet18d"))
register("timm_mobilevit_xxs", "timm", timm_model("mobilevit_xxs"))
# EfficientFormer's attention biases are sized to the last stage's 7x7 grid: 224x224 only.
register("timm_efficientformer_l1", "timm", timm_model("efficientformer_l1", size=224))
register("timm_mixer_s16", "timm", timm_model("mixer_s16_224", img_size=IMAGE))
