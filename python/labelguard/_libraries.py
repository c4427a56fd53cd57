"""What labelguard knows about the libraries people train with, as data: which top-level
modules are libraries (so that an error can name the user's frame that led into one), and the
library-level fix for a rule when the bad call is made at a known place inside it.

`PLACEHOLDER_STEPS` names the library methods that pair placeholder tokens with feature vectors
before a vision-language model merges them with `masked_scatter` (and check the counts
themselves): `enable()` checks the merge there, before the library's check and torch's.

An entry of `FIXES` matches when the library is the one the call went through, the rule (and op) are
among its `rules` (`ops`), and, where given, `function` matches the qualified name of one of
the library's frames on the way and `line` that frame's source line. The first match wins, so
specific entries come before general ones.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Tuple


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
}


@dataclasses.dataclass(frozen=True)
class LibraryFix:
    library: str
    fix: str
    rules: Tuple[str, ...] = ()
    ops: Tuple[str, ...] = ()
    function: str = ""  # regex searched in a library frame's qualified name
    line: str = ""  # regex searched in that frame's source line


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
    base: str  # the library's model class, as `module:attribute`


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
        base="transformers:PreTrainedModel",
    ),
    PlaceholderStep(
        "transformers", "inputs_merger", tokens="input_ids", embeddings="inputs_embeds",
        features=(("image_hidden_states", ("image_token_id",)),),
        base="transformers:PreTrainedModel",
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
FIXES: Tuple[LibraryFix, ...] = (
    # Encoder-decoder models (T5, BART, ...) feed the labels shifted right to the decoder's
    # embedding: `_shift_right` / `shift_tokens_right` replace only -100 with pad_token_id
    # (models/t5/modeling_t5.py, models/bart/modeling_bart.py).
    LibraryFix("transformers", "the decoder's input ids are the labels shifted right (T5/BART replace only -100 with pad_token_id on the way): labels must be token ids below config.vocab_size, padded with -100 (not -1); after adding tokens call model.resize_token_embeddings(len(tokenizer))",
               rules=("LG401",), line=r"self\.decoder\("),
    # The word table: BERT's `word_embeddings`, GPT-2's `wte(input_ids)`, Llama/T5/BART's `embed_tokens`.
    LibraryFix("transformers", "the tokenizer has more tokens than the model's vocabulary: call model.resize_token_embeddings(len(tokenizer)) after adding tokens (or build the config with vocab_size=len(tokenizer))",
               rules=("LG401",), line=r"word_embeddings|self\.wte\(input_ids|embed_tokens\("),
    LibraryFix("transformers", "token_type_ids must be below config.type_vocab_size (2 for BERT: segment A and B); build them with the tokenizer (return_token_type_ids=True), not from another tokenizer's ids",
               rules=("LG401", "LG414"), line=r"token_type_embeddings"),
    # Position tables: BERT's `position_embeddings(position_ids)`, GPT-2's `wpe(position_ids)`
    # (one position per step under generate()'s cache, so the ids alone do not show a sequence),
    # RoBERTa's `torch.gather(buffered_token_type_ids, dim=1, index=position_ids)`, whose
    # position ids start at padding_idx + 1 (create_position_ids_from_input_ids).
    LibraryFix("transformers", "the sequence is longer than config.max_position_embeddings (with generate(): the prompt plus max_new_tokens): truncate when tokenizing (tokenizer(..., truncation=True, max_length=N)) or generate fewer tokens; RoBERTa-style models count positions from padding_idx + 1, so N is max_position_embeddings - padding_idx - 1 (512 for roberta-base's 514)",
               rules=("LG401", "LG402", "LG415"), line=r"position_embeddings|self\.wpe\(|index=position_ids"),
    # Vision-language models merge the image features into the text embeddings at the image
    # placeholder tokens (`inputs_embeds.masked_scatter(special_image_mask, image_features)`);
    # their processors expand each `<image>` to the model's number of image tokens.
    LibraryFix("transformers", "the image (video) placeholder tokens in input_ids must match the image features one for one: build the inputs with the model's processor (processor(text=..., images=...) expands each <image> to the model's number of image tokens), one image per placeholder, and never truncate through image tokens (truncation=False, or a max_length that keeps them all)",
               rules=("LG419",)),
    LibraryFix("transformers", "labels must be class ids below config.num_labels, with -100 for the positions to skip (DataCollatorForTokenClassification pads with -100)",
               rules=("LG101", "LG102", "LG103", "LG104", "LG107", "LG416", "LG418")),
    LibraryFix("timm", "timm.data.Mixup(num_classes=N) and the model's num_classes (timm.create_model(..., num_classes=N)) must both be the dataset's class count",
               function=r"one_hot|mixup_target|Mixup"),
    LibraryFix("timm", "the targets must be class ids below the model's num_classes: timm.create_model(..., num_classes=N) with N the dataset's class count",
               function=r"CrossEntropy"),
    LibraryFix("segmentation_models_pytorch", "pass the void label to the loss (e.g. smp.losses.DiceLoss('multiclass', ignore_index=255)) and build the model with classes=N, the dataset's class count",
               function=r"DiceLoss|JaccardLoss|TverskyLoss|FocalLoss|LovaszLoss|SoftCrossEntropyLoss"),
    LibraryFix("MONAI", "the label map must hold 0..out_channels-1: set the network's out_channels (and the loss' to_onehot_y=True) to the number of classes including background, and remap label values that skip a number (BraTS: 4 → 3)",
               function=r"one_hot|DiceLoss|DiceCELoss|FocalLoss|Dice"),
    LibraryFix("torchvision", "torchvision's detection num_classes includes the background: num_classes = number of object classes + 1, object labels 1..num_classes-1 (0 is background)",
               function=r"fastrcnn_loss|RoIHeads|RetinaNet|SSD|FCOS|compute_loss"),
    LibraryFix("torchmetrics", "give the metric the class count and the void label: e.g. MulticlassJaccardIndex(num_classes=N, ignore_index=255) (validate_args=True reports bad targets on the host)"),
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
               rules=("LG101", "LG102", "LG103", "LG104", "LG105", "LG106", "LG402", "LG409", "LG416", "LG417", "LG418")),
    LibraryFix("mmdet", "mmdet's heads take num_classes without background (the background is index num_classes): set bbox_head/roi_head num_classes to the dataset's object class count"),
)
