"""HELD OUT (issue 22): real-library scenarios written before the cause and library-fix work of
issue 22 and never used to tune it. The code was developed against `test_libraries_facts.py`;
this file was only run, and its result is reported as measured (pass or fail), never edited to
match the code. Each scenario runs a library's own code into a bad call under `enable()` and asks
for the cause the facts show and the library's own fix, in words a user needs (a few key words,
not exact sentences), and for no misleading extra; its valid twin must be bit-identical and
silent. Random-init tiny models and data made here, nothing downloaded.
"""

import warnings

import pytest
import torch
import torch.nn.functional as F

import labelguard
from labelguard import TargetError, TargetWarning
from library_checks import identical, refusal


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def said(err, *groups, never=()):
    """Each group (a tuple of alternatives) has one of its words in the message; no word of
    `never` is. Case-insensitive."""
    text = str(err)
    low = text.lower()
    for group in groups:
        assert any(w.lower() in low for w in group), f"none of {group} in:\n{text}"
    for w in never:
        assert w.lower() not in low, f"{w!r} in:\n{text}"
    return text


def warned(fn):
    """The TargetWarnings fn gives under enable()."""
    labelguard.enable()
    try:
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            fn()
    finally:
        labelguard.disable()
    return [w for w in got if issubclass(w.category, TargetWarning)]


# --- pytorch-metric-learning: ProxyAnchorLoss one-hots raw person ids -----------------------------

def test_proxy_anchor_loss_with_raw_non_contiguous_ids():
    from pytorch_metric_learning import losses

    torch.manual_seed(0)
    loss = losses.ProxyAnchorLoss(num_classes=4, embedding_size=8)
    emb = torch.randn(8, 8)
    raw = torch.tensor([3, 7, 11, 42, 3, 7, 11, 42])  # identities as the dataset names them
    dense = torch.unique(raw, return_inverse=True)[1]
    identical(lambda: loss(emb, dense))
    err = refusal(lambda: loss(emb, raw))
    said(err, ("0..3", "0 to 3", "0..num_classes-1"), ("remap", "map the", "return_inverse", "LabelEncoder"),
         never=("background", "resize_token_embeddings", "void"))


# --- diffusers: UNet2DModel's class embedding and the unconditional label -----------------------

def test_unet2d_class_embedding_given_the_null_class_for_guidance():
    from diffusers import UNet2DModel

    torch.manual_seed(0)
    unet = UNet2DModel(sample_size=8, in_channels=1, out_channels=1, layers_per_block=1, block_out_channels=(8, 8),
                       down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
                       norm_num_groups=4, num_class_embeds=3).eval()
    x, t = torch.randn(4, 1, 8, 8), torch.tensor([10, 10, 10, 10])
    with torch.no_grad():
        identical(lambda: unet(x, t, class_labels=torch.tensor([0, 1, 2, 1])).sample)
        # Classifier-free guidance: the unconditional half of the batch gets the null label 3.
        err = refusal(lambda: unet(x, t, class_labels=torch.tensor([0, 1, 3, 3])).sample)
    said(err, ("null", "unconditional", "classifier-free"), ("num_class_embeds",), never=("resize_token_embeddings", "tokenizer"))


# --- kornia: Tversky loss on a 1-based mask --------------------------------------------------------

def test_kornia_tversky_loss_on_a_one_based_mask():
    import kornia

    torch.manual_seed(0)
    loss = kornia.losses.TverskyLoss(alpha=0.5, beta=0.5)
    pred = torch.randn(2, 4, 6, 6)
    mask = torch.randint(1, 5, (2, 6, 6))  # classes 1..4 of a 4-class model
    mask[0, 0, 0], mask[1, 0, 0] = 4, 1
    identical(lambda: loss(pred, mask - 1))
    err = refusal(lambda: loss(pred, mask))
    said(err, ("1-based", "one-based", "numbered from 1"), ("- 1", "-1", "subtract"), never=("background", "void"))


# --- torchmetrics: top-2 accuracy on raw ids that include 255 among many ----------------------------

def test_torchmetrics_top_k_accuracy_with_many_raw_ids_not_a_void_label():
    from torchmetrics.classification import MulticlassAccuracy

    metric = MulticlassAccuracy(num_classes=5, top_k=2, validate_args=False)
    preds = torch.randn(10, 5).softmax(1)
    good = torch.tensor([0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
    identical(lambda: metric(preds, good))
    raw = torch.tensor([0, 17, 64, 99, 128, 255, 200, 17, 64, 99])  # raw codes, not 0..4
    err = refusal(lambda: metric(preds, raw))
    said(err, ("0..4", "0 to 4", "num_classes"), never=("void", "background"))


# --- ultralytics: the task-aligned assigner of a YOLO head (no background class) ----------------------

def test_yolo_assigner_with_a_class_id_equal_to_nc():
    from ultralytics.utils.tal import TaskAlignedAssigner

    torch.manual_seed(0)
    nc = 3
    assigner = TaskAlignedAssigner(topk=4, num_classes=nc)
    anchors = torch.stack(torch.meshgrid(torch.arange(8.0) + 0.5, torch.arange(8.0) + 0.5, indexing="xy"), -1).view(-1, 2)
    scores = torch.rand(1, 64, nc)
    boxes = torch.cat([anchors - 1.5, anchors + 1.5], -1)[None]
    gt_boxes = torch.tensor([[[0.0, 0.0, 4.0, 4.0], [3.0, 3.0, 8.0, 8.0]]])
    mask = torch.ones(1, 2, 1, dtype=torch.bool)
    identical(lambda: assigner(scores, boxes, anchors, torch.tensor([[[0], [2]]]), gt_boxes, mask)[2])
    # The dataset YAML lists 4 names but the model was built with nc=3.
    err = refusal(lambda: assigner(scores, boxes, anchors, torch.tensor([[[0], [3]]]), gt_boxes, mask))
    said(err, ("nc",), never=("background",))


# --- scikit-learn + a category embedding: a category unseen in training -----------------------------

def test_category_embedding_given_an_unseen_category():
    import numpy as np
    from sklearn.preprocessing import OrdinalEncoder

    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(np.array([["a"], ["b"], ["c"]]))
    torch.manual_seed(0)
    table = torch.nn.Embedding(3, 4)  # one row per category seen in training
    known = torch.from_numpy(enc.transform(np.array([["a"], ["c"], ["b"]])).astype("int64")).view(-1)
    identical(lambda: table(known))
    codes = torch.from_numpy(enc.transform(np.array([["a"], ["z"], ["b"]])).astype("int64")).view(-1)
    err = refusal(lambda: table(codes))
    said(err, ("unseen", "unknown"), never=("resize_token_embeddings", "tokenizer"))


# --- sentence-transformers: SoftmaxLoss on NLI labels numbered from 1 ----------------------------

def test_sentence_transformers_softmax_loss_with_one_based_nli_labels():
    from sentence_transformers.sentence_transformer.losses import SoftmaxLoss

    class Encoder(torch.nn.Module):
        """A stand-in sentence encoder: the features' `sentence_embedding`, as SentenceTransformer returns."""
        device = torch.device("cpu")

        def forward(self, features):
            return {"sentence_embedding": features["x"]}

    torch.manual_seed(0)
    loss = SoftmaxLoss(Encoder(), embedding_dimension=4, num_labels=3)
    a, b = {"x": torch.randn(6, 4)}, {"x": torch.randn(6, 4)}
    identical(lambda: loss([a, b], torch.tensor([0, 1, 2, 0, 1, 2])))
    err = refusal(lambda: loss([a, b], torch.tensor([1, 2, 3, 1, 2, 3])))
    said(err, ("1-based", "one-based", "numbered from 1"), never=("background",))


# --- transformers CTC: labels padded with -1 ----------------------------------------------------------

def test_hubert_ctc_labels_padded_with_minus_one():
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = transformers.HubertConfig(vocab_size=12, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                                       conv_dim=(8, 8), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
                                       num_conv_pos_embedding_groups=2, pad_token_id=0, do_stable_layer_norm=False)
    model = transformers.HubertForCTC(config).eval()
    audio = torch.randn(2, 800)
    labels = torch.tensor([[3, 4, 5, 6], [7, 8, -100, -100]])
    with torch.no_grad():
        identical(lambda: model(audio, labels=labels).loss)
        # PyTorch does not raise here (ctc_loss reads -1 as a label: a garbage loss): a warning.
        got = warned(lambda: model(audio, labels=labels.masked_fill(labels == -100, -1)).loss)
    assert got, "no warning"
    said(got[0].message, ("-100",), never=("background",))


# --- soft targets: distillation ---------------------------------------------------------------------

def test_kl_div_teacher_log_probabilities_without_log_target():
    torch.manual_seed(0)
    student, teacher = torch.randn(8, 10), torch.randn(8, 10)
    good = lambda: F.kl_div(F.log_softmax(student, 1), F.log_softmax(teacher, 1), reduction="batchmean", log_target=True)
    identical(good)
    assert warned(lambda: F.kl_div(F.log_softmax(student, 1), F.softmax(teacher, 1), reduction="batchmean")) == []
    got = warned(lambda: F.kl_div(F.log_softmax(student, 1), F.log_softmax(teacher, 1), reduction="batchmean"))
    assert got, "no warning"
    said(got[0].message, ("log_target",))


def test_cross_entropy_given_teacher_logits_as_soft_targets():
    torch.manual_seed(0)
    student, teacher = torch.randn(8, 10), torch.randn(8, 10) * 3
    # Valid soft targets: the teacher's softmax at a temperature, in bfloat16 too, and mixup.
    identical(lambda: F.cross_entropy(student, (teacher / 4).softmax(1)))
    assert warned(lambda: F.cross_entropy(student.bfloat16(), (teacher / 4).softmax(1).bfloat16())) == []
    y = F.one_hot(torch.arange(8) % 10, 10).float()
    assert warned(lambda: F.cross_entropy(student, 0.7 * y + 0.3 * y.flip(0))) == []
    got = warned(lambda: F.cross_entropy(student, teacher))
    assert got, "no warning"
    said(got[0].message, ("softmax",), ("logits",))


def test_binary_cross_entropy_with_logits_given_logits_as_targets():
    torch.manual_seed(0)
    x, teacher = torch.randn(8, 5), torch.randn(8, 5) * 4
    identical(lambda: F.binary_cross_entropy_with_logits(x, teacher.sigmoid()))
    got = warned(lambda: F.binary_cross_entropy_with_logits(x, teacher))
    assert got, "no warning"
    said(got[0].message, ("sigmoid",))
