"""Issue 22's tuned set: causes read from the facts on every path that takes class indices
(losses, one_hot, index_put by labels, class and category embeddings), each library's own fix
from the table in `_libraries.py`, and soft-target sanity (cross_entropy, kl_div, BCE with
logits). Real libraries (pytorch-metric-learning, diffusers, kornia, torchmetrics, torchvision,
peft, transformers, sentence-transformers), random-init tiny models, nothing downloaded; each
bad call is refused (or warned about, where PyTorch computes garbage) with its cause and fix, and
each valid twin is bit-identical and silent. `test_libraries_heldout.py` holds the scenarios
this code was not tuned on."""

import warnings

import pytest
import torch
import torch.nn.functional as F

import labelguard
from labelguard import TargetWarning
from library_checks import caught, identical, refusal


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def warned(fn):
    """The TargetWarnings fn gives under enable()."""
    labelguard.enable()
    try:
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            fn()
    finally:
        labelguard.disable()
    return [str(w.message) for w in got if issubclass(w.category, TargetWarning)]


def test_arcface_loss_with_raw_identity_ids_asks_for_a_remap():
    from pytorch_metric_learning import losses

    torch.manual_seed(0)
    loss = losses.ArcFaceLoss(num_classes=5, embedding_size=8)
    emb = torch.randn(10, 8)
    raw = torch.tensor([101, 205, 333, 478, 590, 101, 205, 333, 478, 590])
    identical(lambda: loss(emb, torch.unique(raw, return_inverse=True)[1]))
    err = caught(lambda: loss(emb, raw), "LG420", "pytorch_metric_learning", "pytorch_metric_learning fix: its classifier losses")
    assert "raw, non-contiguous ids (101, 205, 333, 478, 590)" in str(err)
    assert "void" not in str(err) and "background" not in str(err)


def tiny_conditional_unet(classes):
    from diffusers import UNet2DConditionModel

    torch.manual_seed(0)
    return UNet2DConditionModel(sample_size=8, in_channels=2, out_channels=2, layers_per_block=1, block_out_channels=(8, 8),
                                down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
                                cross_attention_dim=8, attention_head_dim=2, norm_num_groups=4, num_class_embeds=classes).eval()


def test_diffusers_class_embedding_without_a_row_for_the_null_label():
    unet = tiny_conditional_unet(4)
    x, t, text = torch.randn(4, 2, 8, 8), torch.tensor([5, 5, 5, 5]), torch.randn(4, 3, 8)
    with torch.no_grad():
        identical(lambda: unet(x, t, text, class_labels=torch.tensor([0, 3, 1, 2])).sample)
        # Classifier-free guidance: the dropped half of the batch carries the null label 4.
        err = caught(lambda: unet(x, t, text, class_labels=torch.tensor([0, 3, 4, 4])).sample, "LG401",
                     "diffusers UNet2DConditionModel.get_class_embed → embedding", "diffusers fix: build the model with num_class_embeds = number of classes + 1")
    text = str(err)
    assert "null (unconditional) class of classifier-free guidance" in text
    assert "tokenizer" not in text and "resize_token_embeddings" not in text


def test_kornia_focal_loss_on_a_one_based_mask_through_one_hot():
    import kornia

    torch.manual_seed(0)
    loss = kornia.losses.FocalLoss(alpha=0.5, gamma=2.0, reduction="none")  # the dense path: one_hot
    pred = torch.randn(2, 3, 5, 5)
    mask = torch.randint(1, 4, (2, 5, 5))
    mask[0, 0, 0], mask[1, 1, 1] = 1, 3
    identical(lambda: loss(pred, mask - 1))
    err = caught(lambda: loss(pred, mask), "LG104", "kornia one_hot → one_hot", "kornia fix: kornia's losses take labels 0..C-1")
    assert "1-based" in str(err) and "labels = labels - 1" in str(err) and "background" not in str(err)


def test_kornia_focal_loss_with_the_void_label_gets_its_ignore_index():
    import kornia

    torch.manual_seed(0)
    loss = kornia.losses.FocalLoss(alpha=0.5, gamma=2.0, reduction="none")
    pred = torch.randn(2, 3, 5, 5)
    mask = torch.randint(0, 3, (2, 5, 5))
    mask[:, 0, :] = 255  # the void border
    identical(lambda: kornia.losses.FocalLoss(alpha=0.5, gamma=2.0, reduction="none", ignore_index=255)(pred, mask))
    err = caught(lambda: loss(pred, mask), "LG103", "kornia one_hot → one_hot", "kornia fix: pass the void label to the loss: kornia.losses.FocalLoss(alpha, ignore_index=255)")
    assert "\n  fix:" not in str(err)  # the library's switch replaces the torch-level fix


def test_torchmetrics_top_k_accuracy_with_the_void_label():
    from torchmetrics.classification import MulticlassAccuracy

    preds = torch.randn(8, 4).softmax(1)
    target = torch.tensor([0, 1, 2, 3, 255, 1, 2, 255])
    identical(lambda: MulticlassAccuracy(num_classes=4, top_k=2, ignore_index=255)(preds, target))
    metric = MulticlassAccuracy(num_classes=4, top_k=2, validate_args=False)
    caught(lambda: metric(preds, target), "LG103", "torchmetrics", "torchmetrics fix: give the metric the void label")


def test_mask_rcnn_mask_head_narrower_than_the_box_head():
    from torchvision.models.detection.roi_heads import maskrcnn_loss

    torch.manual_seed(0)
    boxes = [torch.tensor([[0.0, 0.0, 8.0, 8.0], [2.0, 2.0, 12.0, 12.0], [1.0, 1.0, 6.0, 9.0], [0.0, 3.0, 9.0, 9.0], [4.0, 4.0, 15.0, 15.0]])]
    gt_masks = [torch.randint(0, 2, (3, 16, 16)).float()]
    matched = [torch.tensor([0, 1, 1, 2, 2])]
    # The box head classifies 4 classes (background + 3); the mask head was built with 3 channels.
    # maskrcnn_loss gets the positive proposals' labels: 1..3, never 0.
    labels = [torch.tensor([1, 3, 3, 2, 2])]
    identical(lambda: maskrcnn_loss(torch.randn(5, 4, 14, 14), boxes, gt_masks, labels, matched))
    err = caught(lambda: maskrcnn_loss(torch.randn(5, 3, 14, 14), boxes, gt_masks, labels, matched), "LG416",
                 "torchvision maskrcnn_loss → index", "torchvision fix: build the mask predictor with the box predictor's class count")
    assert "the mask predictor has fewer channels than the box predictor has classes" in str(err)


def test_peft_trainable_tokens_given_an_id_beyond_the_base_vocabulary():
    import peft
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    base = transformers.LlamaForCausalLM(transformers.LlamaConfig(vocab_size=40, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                                                  num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32)).eval()
    model = peft.get_peft_model(base, peft.LoraConfig(target_modules=["q_proj"], trainable_token_indices=[1, 2], r=2)).eval()
    ids = torch.randint(0, 40, (2, 6))
    with torch.no_grad():
        identical(lambda: model(input_ids=ids).logits)
        ids[0, 3] = 41  # two tokens added to the tokenizer, the base model not resized
        err = caught(lambda: model(input_ids=ids).logits, "LG401", "peft", "peft fix: add the tokens and call model.resize_token_embeddings(len(tokenizer)) on the base model before get_peft_model")
    assert "token ids into the base model's word table" in str(err)


def test_category_embedding_given_pandas_codes_of_an_unseen_category():
    import pandas as pd

    torch.manual_seed(0)
    train = pd.Categorical(["red", "green", "blue", "green"])
    table = torch.nn.Embedding(len(train.categories), 4)
    codes = lambda values: torch.from_numpy(pd.Categorical(values, categories=train.categories).codes.astype("int64"))
    identical(lambda: table(codes(["blue", "red"])))
    err = refusal(lambda: table(codes(["blue", "purple", "red"])))  # purple: never seen in training → code -1
    assert err.code == "LG421", str(err)
    assert "unknown or missing category" in str(err) and "num_embeddings=4" in str(err)
    assert "tokenizer" not in str(err)


def test_wav2vec2_ctc_labels_padded_with_minus_one_get_the_ctc_collator_fix():
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = transformers.Wav2Vec2Config(vocab_size=12, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                                         conv_dim=(8, 8), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
                                         num_conv_pos_embedding_groups=2, pad_token_id=0)
    model = transformers.Wav2Vec2ForCTC(config).eval()
    audio, labels = torch.randn(2, 800), torch.tensor([[3, 4, 5, 6], [7, 8, -100, -100]])
    with torch.no_grad():
        identical(lambda: model(audio, labels=labels).loss)
        got = warned(lambda: model(audio, labels=labels.masked_fill(labels == -100, -1)).loss)
    assert got and "transformers fix: pad the labels with -100, as DataCollatorCTCWithPadding does" in got[0], got
    assert "masks only -100 and the blank" in got[0] and "num_labels" not in got[0]


def test_sentence_transformers_softmax_loss_with_more_labels_than_num_labels():
    from sentence_transformers.sentence_transformer.losses import SoftmaxLoss

    class Encoder(torch.nn.Module):
        device = torch.device("cpu")

        def forward(self, features):
            return {"sentence_embedding": features["x"]}

    torch.manual_seed(0)
    loss = SoftmaxLoss(Encoder(), embedding_dimension=4, num_labels=2)
    a, b = {"x": torch.randn(6, 4)}, {"x": torch.randn(6, 4)}
    identical(lambda: loss([a, b], torch.tensor([0, 1, 1, 0, 1, 0])))
    caught(lambda: loss([a, b], torch.tensor([0, 1, 2, 0, 1, 2])), "LG101", "sentence_transformers SoftmaxLoss.forward",
           "sentence_transformers fix: SoftmaxLoss(model, embedding_dimension, num_labels=N)")


def test_255_among_many_raw_ids_is_not_called_the_void_label():
    x = torch.randn(8, 5)
    err = refusal(lambda: F.cross_entropy(x, torch.tensor([0, 17, 64, 99, 128, 255, 200, 3])))
    assert "void" not in str(err) and err.code == "LG101", str(err)
    err = refusal(lambda: F.cross_entropy(x, torch.tensor([0, 1, 2, 255, 4, 255, 1, 3])))
    assert err.code == "LG103", str(err)


def test_one_hot_and_index_put_share_the_causes_of_the_losses():
    # 1-based on the scatter path, as on the cross-entropy path.
    assert refusal(lambda: F.one_hot(torch.tensor([1, 2, 3, 3]), 3)).code == "LG104"
    assert refusal(lambda: F.cross_entropy(torch.randn(4, 3), torch.tensor([1, 2, 3, 3]))).code == "LG104"
    # Raw ids on every path.
    raw = torch.tensor([12, 40, 77, 12])
    assert refusal(lambda: F.one_hot(raw, 3)).code == "LG420"
    assert refusal(lambda: F.cross_entropy(torch.randn(4, 3), raw)).code == "LG420"

    def put(labels):
        mask = torch.zeros(4, 3)
        mask[torch.arange(4), labels] = 1
        return mask

    assert refusal(lambda: put(raw)).code == "LG420"


# --- soft targets ------------------------------------------------------------------------------------

def test_valid_soft_targets_never_warn():
    torch.manual_seed(0)
    x, teacher = torch.randn(16, 100), torch.randn(16, 100) * 5
    y = F.one_hot(torch.arange(16) % 100, 100).float()
    smoothed = y * 0.9 + 0.1 / 100
    mixed = 0.6 * y + 0.4 * y.roll(1, 0)
    for target in (smoothed, mixed, (teacher / 2).softmax(1)):
        identical(lambda: F.cross_entropy(x, target))
        identical(lambda: F.kl_div(x.log_softmax(1), target, reduction="batchmean"))
    assert warned(lambda: F.cross_entropy(x.bfloat16(), teacher.softmax(1).bfloat16())) == []
    assert warned(lambda: F.cross_entropy(x.half(), teacher.softmax(1).half())) == []
    assert warned(lambda: F.kl_div(x.log_softmax(1).bfloat16(), teacher.softmax(1).bfloat16(), reduction="batchmean")) == []
    assert warned(lambda: F.kl_div(x.log_softmax(1), teacher.log_softmax(1), reduction="batchmean", log_target=True)) == []
    assert warned(lambda: torch.nn.KLDivLoss(reduction="batchmean")(x.log_softmax(1), teacher.softmax(1))) == []
    identical(lambda: F.binary_cross_entropy_with_logits(x, teacher.sigmoid()))
    # Segmentation distillation: distributions along dim 1 of [N, C, H, W].
    s, t = torch.randn(2, 4, 3, 3), torch.randn(2, 4, 3, 3)
    assert warned(lambda: F.kl_div(s.log_softmax(1), t.softmax(1), reduction="batchmean")) == []


def test_cross_entropy_with_teacher_logits_as_targets_warns_with_softmax():
    torch.manual_seed(0)
    got = warned(lambda: F.cross_entropy(torch.randn(4, 6), torch.randn(4, 6) * 3))
    assert len(got) == 1 and "[LG504]" in got[0] and "look like logits" in got[0] and "softmax(dim=1)" in got[0], got


def test_bce_with_logits_with_logits_as_targets_warns_with_sigmoid():
    torch.manual_seed(0)
    got = warned(lambda: F.binary_cross_entropy_with_logits(torch.randn(4, 6), torch.randn(4, 6) * 3))
    assert len(got) == 1 and "[LG503]" in got[0] and "teacher_logits.sigmoid()" in got[0], got


def test_kl_div_mixups_warn():
    torch.manual_seed(0)
    s, t = torch.randn(4, 6), torch.randn(4, 6)
    cases = {
        "LG423": lambda: F.kl_div(s.softmax(1), t.softmax(1), reduction="batchmean"),  # probabilities as input
        "LG422": lambda: F.kl_div(s.log_softmax(1), t.log_softmax(1), reduction="batchmean"),  # log_target forgotten
    }
    for code, fn in cases.items():
        got = warned(fn)
        assert len(got) == 1 and f"[{code}]" in got[0], (code, got)
    got = warned(lambda: F.kl_div(s.log_softmax(1), t.softmax(1), reduction="batchmean", log_target=True))
    assert got and "[LG422]" in got[0] and "drop log_target=True" in got[0], got
    got = warned(lambda: torch.nn.KLDivLoss(reduction="batchmean")(s.log_softmax(1), t))  # raw teacher logits
    assert got and "[LG422]" in got[0] and "softmax(dim)" in got[0], got
    # PyTorch computes each of these without a word.
    assert torch.isfinite(F.kl_div(s.softmax(1), t.softmax(1), reduction="batchmean"))
