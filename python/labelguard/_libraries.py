"""What labelguard knows about the libraries people train with, as data: which top-level
modules are libraries (so that an error can name the user's frame that led into one), and the
library-level fix for a rule when the bad call is made at a known place inside it.

`PLACEHOLDER_STEPS` names the library methods that pair placeholder tokens with feature vectors
before a vision-language model merges them with `masked_scatter` (and check the counts
themselves): `enable()` checks the merge there, before the library's check and torch's.

An entry of `FIXES` matches when the library is the one the call went through, the rule (and op) are
among its `rules` (`ops`), `when` (where given) matches the core's cause (a finding's hint or
message: the facts, not the op alone), and, where given, `function` matches the qualified name of
one of the library's frames on the way and `line` that frame's source line. The first match wins,
so specific entries come before general ones. An entry's `cause` replaces the core's hint where
the library knows better (the same ids are tokens in a model's word table), and `replaces` drops
the core's torch-level fix where the library's own switch is the fix (`revised`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Dict, Optional, Sequence, Tuple

from . import _native


#: Top-level module → the name users know the library by.
LIBRARIES: Dict[str, str] = {
    "transformers": "transformers",
    "timm": "timm",
    "torchvision": "torchvision",
    "mmseg": "mmseg",
    "mmdet": "mmdet",
    "mmengine": "mmengine",
    "segmentation_models_pytorch": "segmentation_models_pytorch",
    "torchmetrics": "torchmetrics",
    "monai": "MONAI",
    "torch_geometric": "torch_geometric",
    "kornia": "kornia",
    "pytorch_metric_learning": "pytorch_metric_learning",
    "diffusers": "diffusers",
    "peft": "peft",
    "sentence_transformers": "sentence_transformers",
    "ultralytics": "ultralytics",
}


@dataclasses.dataclass(frozen=True)
class LibraryFix:
    library: str
    fix: str
    rules: Tuple[str, ...] = ()
    ops: Tuple[str, ...] = ()
    function: str = ""  # regex searched in a library frame's qualified name
    line: str = ""  # regex searched in that frame's source line
    when: str = ""  # regex searched in a finding's hint and message: the core's cause agrees
    cause: str = ""  # replaces the finding's hint: the cause as the library knows it
    replaces: bool = False  # the library's switch is the fix: the core's torch-level fix is dropped
    rule: str = ""  # the rule of the library's cause, where the core's facts alone named another


@dataclasses.dataclass(frozen=True)
class PlaceholderStep:
    """A method (`method`, on any subclass of the library's `base` class that defines it) whose
    arguments hold a merge `embeddings.masked_scatter((tokens == id).unsqueeze(-1), features)`:
    for each `(features argument, config attributes that may hold its token id)` given, the
    placeholder tokens must number exactly the feature vectors."""

    library: str
    method: str
    tokens: str
    embeddings: str
    features: Tuple[Tuple[str, Tuple[str, ...]], ...]
    base: str  # the library's model class, as `module:attribute` (the module that defines it: a lazy
    # package's attribute would import it, maybe while the library is half-imported)


# transformers 5.x: the vision-language models' `get_placeholder_mask(input_ids, inputs_embeds,
# image_features=None, video_features=None, audio_features=None)` (97 models in 5.23: LLaVA,
# LLaVA-NeXT, Qwen2-VL, Qwen2.5-VL, Gemma 3, PaliGemma, Mistral 3, ...) counts
# `input_ids == config.image_token_id` and raises `ValueError: Image features and image tokens
# do not match` (through `torch_compilable_check`, which TRANSFORMERS_DISABLE_TORCH_CHECK=1
# turns off: the merge then reaches masked_scatter's CUDA assert). Idefics2 and Idefics3 do the
# same in `inputs_merger(input_ids, inputs_embeds, image_hidden_states)`. The others (ColQwen2's
# forward; Qwen2-Audio, which checks inline in its forward) reach masked_scatter directly, where
# its own wrapper checks the call (more placeholders than features: the CUDA assert).
PLACEHOLDER_STEPS: Tuple[PlaceholderStep, ...] = (
    PlaceholderStep(
        "transformers", "get_placeholder_mask", tokens="input_ids", embeddings="inputs_embeds",
        features=(
            ("image_features", ("image_token_id", "image_token_index")),
            ("video_features", ("video_token_id", "video_token_index")),
            ("audio_features", ("audio_token_id", "audio_token_index")),
        ),
        base="transformers.modeling_utils:PreTrainedModel",
    ),
    PlaceholderStep(
        "transformers", "inputs_merger", tokens="input_ids", embeddings="inputs_embeds",
        features=(("image_hidden_states", ("image_token_id",)),),
        base="transformers.modeling_utils:PreTrainedModel",
    ),
)


# Facts from the libraries' sources: transformers' BertEmbeddings.forward
# (models/bert/modeling_bert.py: word_, token_type_ and position_embeddings), timm's
# loss/cross_entropy.py (gather on target.unsqueeze(1)) and data/mixup.py (one_hot via
# scatter_), segmentation_models_pytorch's losses/dice.py and jaccard.py (F.one_hot of the
# mask), MONAI's networks/utils.py one_hot (scatter_ along the channel dim), torchvision's
# detection/roi_heads.py fastrcnn_loss and ssd.py (F.cross_entropy over num_classes
# including background), torchmetrics' confusion-matrix bincount, torch_geometric's
# message passing (index_select over node_dim, scatter of edge_index), mmseg's
# models/losses/cross_entropy_loss.py and mmdet's heads.
_CLASS_CAUSES = ("LG101", "LG102", "LG103", "LG104", "LG107", "LG416", "LG417", "LG418", "LG420")
#: The rules an out-of-range id of an embedding can carry (the core reads a small table as classes).
_TABLE_CAUSES = ("LG401", "LG412", "LG421")
FIXES: Tuple[LibraryFix, ...] = (
    # CTC heads (Wav2Vec2ForCTC, HubertForCTC, WavLMForCTC, ...: loss/loss_ctc.py ForCTCLoss) mask
    # only -100 and the blank (pad_token_id) out of the labels; labels >= config.vocab_size raise
    # their own ValueError (huggingface/transformers#12270), so the head must be as wide as the
    # processor's tokenizer.
    LibraryFix("transformers", "pad the labels with -100, as DataCollatorCTCWithPadding does (labels.masked_fill(attention_mask.ne(1), -100)); label ids must be below config.vocab_size: build the model with vocab_size=len(processor.tokenizer) and pad_token_id=processor.tokenizer.pad_token_id",
               ops=("ctc_loss",), cause="transformers' CTC loss masks only -100 and the blank (pad_token_id) out of the labels: any other padding value is read as a label", replaces=True),
    # Encoder-decoder models (T5, BART, ...) feed the labels shifted right to the decoder's
    # embedding: `_shift_right` / `shift_tokens_right` replace only -100 with pad_token_id
    # (models/t5/modeling_t5.py, models/bart/modeling_bart.py).
    LibraryFix("transformers", "the decoder's input ids are the labels shifted right (T5/BART replace only -100 with pad_token_id on the way): labels must be token ids below config.vocab_size, padded with -100 (not -1); after adding tokens call model.resize_token_embeddings(len(tokenizer))",
               rules=_TABLE_CAUSES, line=r"self\.decoder\(", cause="the labels became the decoder's input ids: they index the model's word table", replaces=True, rule="LG401"),
    # The word table: BERT's `word_embeddings`, GPT-2's `wte(input_ids)`, Llama/T5/BART's `embed_tokens`.
    LibraryFix("transformers", "the tokenizer has more tokens than the model's vocabulary: call model.resize_token_embeddings(len(tokenizer)) after adding tokens (or build the config with vocab_size=len(tokenizer)); -100 is the padding of labels, never of input_ids (pad them with tokenizer.pad_token_id)",
               rules=_TABLE_CAUSES, line=r"word_embeddings|self\.wte\(input_ids|embed_tokens\(", cause="the ids are token ids into the model's word table (its input embeddings)", replaces=True, rule="LG401"),
    LibraryFix("transformers", "token_type_ids must be below config.type_vocab_size (2 for BERT: segment A and B); build them with the tokenizer (return_token_type_ids=True), not from another tokenizer's ids",
               rules=("LG401", "LG414"), line=r"token_type_embeddings"),
    # Position tables: BERT's `position_embeddings(position_ids)`, GPT-2's `wpe(position_ids)`
    # (one position per step under generate()'s cache, so the ids alone do not show a sequence),
    # RoBERTa's `torch.gather(buffered_token_type_ids, dim=1, index=position_ids)`, whose
    # position ids start at padding_idx + 1 (create_position_ids_from_input_ids).
    LibraryFix("transformers", "the sequence is longer than config.max_position_embeddings (with generate(): the prompt plus max_new_tokens): truncate when tokenizing (tokenizer(..., truncation=True, max_length=N)) or generate fewer tokens; RoBERTa-style models count positions from padding_idx + 1, so N is max_position_embeddings - padding_idx - 1 (512 for roberta-base's 514)",
               rules=("LG401", "LG402", "LG415", "LG421"), line=r"position_embeddings|self\.wpe\(|index=position_ids"),
    # Vision-language models merge the image features into the text embeddings at the image
    # placeholder tokens (`inputs_embeds.masked_scatter(special_image_mask, image_features)`);
    # their processors expand each `<image>` to the model's number of image tokens.
    LibraryFix("transformers", "the image (video) placeholder tokens in input_ids must match the image features one for one: build the inputs with the model's processor (processor(text=..., images=...) expands each <image> to the model's number of image tokens), one image per placeholder, and never truncate through image tokens (truncation=False, or a max_length that keeps them all)",
               rules=("LG419",)),
    LibraryFix("transformers", "labels must be class ids below config.num_labels (from_pretrained(..., num_labels=N) with N the dataset's class count, and id2label/label2id to match), with -100 for the positions to skip (DataCollatorForTokenClassification pads with -100)",
               rules=_CLASS_CAUSES),
    # peft's adapter layers look token ids up in the base model's (merged) word table themselves:
    # tuners/trainable_tokens/layer.py (`F.embedding(input=x, weight=W, ...)`) and
    # tuners/lora/layer.py (Embedding._embed).
    LibraryFix("peft", "add the tokens and call model.resize_token_embeddings(len(tokenizer)) on the base model before get_peft_model(...); train the new rows with LoraConfig(trainable_token_indices=[...]) or modules_to_save=['embed_tokens']",
               rules=_TABLE_CAUSES, cause="the ids are token ids into the base model's word table, looked up by peft's adapter layer", replaces=True, rule="LG401"),
    LibraryFix("timm", "timm.data.Mixup(num_classes=N) and the model's num_classes (timm.create_model(..., num_classes=N)) must both be the dataset's class count",
               function=r"one_hot|mixup_target|Mixup"),
    LibraryFix("timm", "the targets must be class ids below the model's num_classes: timm.create_model(..., num_classes=N) with N the dataset's class count",
               function=r"CrossEntropy"),
    LibraryFix("segmentation_models_pytorch", "pass the void label to the loss: smp.losses.DiceLoss('multiclass', ignore_index=255) (JaccardLoss, FocalLoss, TverskyLoss and SoftCrossEntropyLoss take ignore_index too)",
               rules=("LG103",), function=r"DiceLoss|JaccardLoss|TverskyLoss|FocalLoss|LovaszLoss|SoftCrossEntropyLoss", replaces=True),
    LibraryFix("segmentation_models_pytorch", "pass the void label to the loss (e.g. smp.losses.DiceLoss('multiclass', ignore_index=255)) and build the model with classes=N, the dataset's class count",
               function=r"DiceLoss|JaccardLoss|TverskyLoss|FocalLoss|LovaszLoss|SoftCrossEntropyLoss"),
    LibraryFix("MONAI", "the label map must hold 0..out_channels-1: set the network's out_channels (and the loss' to_onehot_y=True) to the number of classes including background, and remap label values that skip a number (BraTS: 4 → 3)",
               function=r"one_hot|DiceLoss|DiceCELoss|FocalLoss|Dice"),
    # Mask R-CNN: roi_heads.py maskrcnn_loss picks `mask_logits[torch.arange(N), labels]`, the
    # mask of each proposal's box class, so the mask head needs a channel per box class.
    LibraryFix("torchvision", "build the mask predictor with the box predictor's class count: MaskRCNNPredictor(in_channels, dim_reduced, num_classes) with the same num_classes as FastRCNNPredictor (object classes + 1, background included)",
               function=r"maskrcnn_loss", cause="the mask predictor has fewer channels than the box predictor has classes: maskrcnn_loss picks each proposal's mask by its box label (foreground labels only, so no 0 among them)",
               replaces=True, rule="LG416"),
    LibraryFix("torchvision", "torchvision's detection num_classes includes the background: num_classes = number of object classes + 1, object labels 1..num_classes-1 (0 is background)",
               function=r"fastrcnn_loss|RoIHeads|RetinaNet|SSD|FCOS|compute_loss"),
    LibraryFix("torchmetrics", "give the metric the void label: e.g. MulticlassJaccardIndex(num_classes=N, ignore_index=255)",
               rules=("LG103",), replaces=True),
    LibraryFix("torchmetrics", "the metric's num_classes must count every class id of the targets, which must be 0..num_classes-1 (remap raw ids first); validate_args=True (the default) reports bad targets on the host before any kernel runs"),
    # Pooling and dense batching scatter node features by `batch` into `size`/`batch_size`
    # graphs (torch_geometric/nn/pool/glob.py, utils/_to_dense_batch.py).
    LibraryFix("torch_geometric", "the batch vector assigns a node to a graph beyond the size given: size= (batch_size=) must be at least batch.max() + 1; leave it None to infer it, or pass data.num_graphs",
               function=r"^global_\w+_pool$|^to_dense_batch$"),
    LibraryFix("torch_geometric", "edge_index refers to nodes that do not exist: every entry must be below data.num_nodes (relabel after subgraph/slicing: torch_geometric.utils.subgraph(..., relabel_nodes=True))"),
    # mmseg 1.x cross_entropy: `torch.stack([class_weight[cls] for cls in label])` before any
    # masking (open-mmlab/mmsegmentation issue 3734, open in 1.2.2).
    LibraryFix("mmseg", "mmseg's cross_entropy looks up class_weight[label] before it applies ignore_index (open-mmlab/mmsegmentation#3734), so the void label crashes it even with ignore_index=255: until that is fixed, index the weights with the void pixels masked (class_weight[label.clamp(0, num_classes - 1)], their weight then set to 0) or drop class_weight from loss_decode",
               rules=("LG409",), line=r"class_weight\[cls\]"),
    LibraryFix("mmseg", "set ignore_index=255 in decode_head (and loss_decode=dict(..., avg_non_ignore=True)); datasets whose 0 is background need reduce_zero_label=True in the LoadAnnotations step; num_classes in decode_head must match the dataset",
               rules=("LG101", "LG102", "LG103", "LG104", "LG105", "LG106", "LG402", "LG409", "LG416", "LG417", "LG418", "LG420")),
    LibraryFix("mmdet", "mmdet's heads take num_classes without background (the background is index num_classes): set bbox_head/roi_head num_classes to the dataset's object class count"),
    # kornia 0.9 losses (losses/focal.py, dice.py, tversky.py, lovasz_softmax.py) one-hot the
    # labels with C = pred.shape[1] after masking `ignore_index` (default -100) pixels to 0.
    LibraryFix("kornia", "pass the void label to the loss: kornia.losses.FocalLoss(alpha, ignore_index=255) (DiceLoss, TverskyLoss and the Lovasz losses take ignore_index too; the default is -100)",
               rules=("LG103",), replaces=True),
    LibraryFix("kornia", "kornia's losses take labels 0..C-1 with C = pred.shape[1], the model's output channels: build the model with as many output channels as classes; pixels to skip carry the loss' ignore_index (default -100)"),
    # pytorch-metric-learning's classifier losses keep a [num_classes, embedding_size] weight
    # or proxy table and index it by label (losses/large_margin_softmax_loss.py get_target_mask:
    # `mask[torch.arange(batch_size), labels] = 1`; proxy_anchor_loss.py `one_hot(labels,
    # self.num_classes)`; soft_triple_loss.py); KevinMusgrave/pytorch-metric-learning#218.
    LibraryFix("pytorch_metric_learning", "its classifier losses (ArcFaceLoss, CosFaceLoss, ProxyAnchorLoss, NormalizedSoftmaxLoss, SoftTripleLoss, ...) index a table of num_classes rows by label: remap the raw ids once for the whole dataset to 0..K-1 (ids = {raw: i for i, raw in enumerate(sorted(set(all_ids)))}) and build the loss with num_classes=K",
               rules=("LG420",), replaces=True),
    LibraryFix("pytorch_metric_learning", "its classifier losses (ArcFaceLoss, CosFaceLoss, ProxyAnchorLoss, ...) take labels 0..num_classes-1: build the loss with num_classes = the number of classes of the dataset (ArcFaceLoss(num_classes=K, embedding_size=D))"),
    # diffusers: UNet2DModel / UNet2DConditionModel build `nn.Embedding(num_class_embeds, ...)`
    # and look class_labels up in it (unets/unet_2d.py forward, unet_2d_condition.py
    # get_class_embed); classifier-free guidance trains a null label, conventionally the id
    # num_classes (CompVis/latent-diffusion#116: 1000 for ImageNet's 1000 classes).
    LibraryFix("diffusers", "build the model with num_class_embeds = number of classes + 1 and give the unconditional (dropped) samples the last id as their class label",
               rules=_TABLE_CAUSES, line=r"class_embedding\(", when=r"null|one class more", replaces=True),
    LibraryFix("diffusers", "num_class_embeds must count every class label (plus one for the null label of classifier-free guidance): class_labels must be 0..num_class_embeds-1",
               line=r"class_embedding\("),
    # ultralytics: TaskAlignedAssigner (utils/tal.py) indexes the class scores by the ground-truth
    # labels (`pd_scores[b, anchors, gt_labels]`) and scatters them into `num_classes` channels;
    # YOLO heads have nc channels and no background class.
    LibraryFix("ultralytics", "YOLO class ids must be 0..nc-1, nc counting the object classes only (the names of the dataset YAML): build the model with nc=len(names), or fix the class ids in the label files",
               replaces=True),
    # sentence-transformers: losses/softmax.py SoftmaxLoss classifies the pair with a
    # Linear(..., num_labels) and nn.CrossEntropyLoss.
    LibraryFix("sentence_transformers", "SoftmaxLoss(model, embedding_dimension, num_labels=N) takes labels 0..N-1 (NLI: 0 entailment, 1 neutral, 2 contradiction, as the datasets' label column); give num_labels the number of label values",
               function=r"SoftmaxLoss"),
)


def library_fix(op: str, rules: Sequence[str], findings: Sequence[Any], libs: Sequence[Any]) -> Optional[LibraryFix]:
    """The first entry of FIXES that matches a call of `op` with findings of `rules` (and their
    hints and messages, `findings`) made through the library frames `libs` (innermost first,
    each with `library`, `function` and `line`)."""
    if not libs:
        return None
    told = " ".join(f"{getattr(f, 'hint', '') or ''} {getattr(f, 'message', '')}" for f in findings)
    for entry in FIXES:
        if entry.library != libs[0].library:
            continue
        if entry.rules and not set(entry.rules) & set(rules):
            continue
        if entry.ops and op not in entry.ops:
            continue
        if entry.when and not re.search(entry.when, told):
            continue
        if any((not entry.function or re.search(entry.function, f.function)) and (not entry.line or re.search(entry.line, f.line)) for f in libs):
            return entry
    return None


def revised(report: Any, entry: Optional[LibraryFix]) -> Any:
    """`report` with the library's word on its findings: `entry.cause` as their hint, and no
    torch-level fix where the library's own switch (`entry.fix`, in the call site) is the fix."""
    if entry is None or not (entry.cause or entry.replaces):
        return report
    name = {code: name for code, name, *_ in _native.rules()}
    findings = tuple(
        dataclasses.replace(f, hint=entry.cause or f.hint, fix="" if entry.replaces else f.fix,
                            code=entry.rule or f.code, rule=name[entry.rule] if entry.rule else f.rule)
        if f.verdict != "ok" and (not entry.rules or f.code in entry.rules) else f
        for f in report.findings
    )
    return dataclasses.replace(report, findings=findings)


def with_library(report: Any, site: Any) -> Tuple[Any, Any]:
    """The report and call site of a refused call with the library's word on it: the entry that
    matches the call's findings (their causes too) gives the site its fix, and the findings
    their library cause (`revised`)."""
    entry = library_fix(report.op, [f.code for f in report.findings], report.findings, site.library)
    return revised(report, entry), dataclasses.replace(site, fix=entry.fix if entry else None)
