"""enable() with the libraries people train with (random-init models from configs, nothing
downloaded): each realistic bad batch is refused before torch runs with the right rule, the
error names this file's line and the library call, with the library-level fix; valid batches
raise nothing and give bit-identical outputs."""

import os

import pytest
import torch
import torch.nn.functional as F

import labelguard
from labelguard import TargetError
from library_checks import caught, child_json, identical, mmseg_cross_entropy_loss

torch.manual_seed(0)


# --- transformers -------------------------------------------------------------------------

import transformers  # noqa: E402


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def bert():
    config = transformers.BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=32, type_vocab_size=2)
    torch.manual_seed(0)
    return transformers.BertForSequenceClassification(config).eval()


def test_bert_token_id_beyond_the_vocabulary_asks_for_resize_token_embeddings():
    model, ids = bert(), torch.randint(0, 50, (2, 8))
    identical(lambda: model(input_ids=ids).logits)
    ids[1, 3] = 53  # the tokenizer got new tokens; the model's table did not
    err = caught(lambda: model(input_ids=ids), "LG401", "transformers BertEmbeddings.forward → embedding", "model.resize_token_embeddings(len(tokenizer))")
    assert err.call_site.library[-1].function == "BertForSequenceClassification.forward"


def test_bert_token_type_ids_beyond_type_vocab_size():
    model, ids = bert(), torch.randint(0, 50, (2, 8))
    types = torch.zeros(2, 8, dtype=torch.long)
    types[:, 4:] = 2  # a third segment: BERT has two
    caught(lambda: model(input_ids=ids, token_type_ids=types), "LG414", "BertEmbeddings.forward", "type_vocab_size")


def test_bert_labels_beyond_num_labels():
    model, ids = bert(), torch.randint(0, 50, (2, 8))
    identical(lambda: model(input_ids=ids, labels=torch.tensor([0, 1])).loss)
    caught(lambda: model(input_ids=ids, labels=torch.tensor([0, 2])), "LG101", "transformers BertForSequenceClassification.forward → cross_entropy", "num_labels")


# --- mmsegmentation ------------------------------------------------------------------------

import mmseg  # noqa: E402,F401


def test_mmseg_class_weight_lookup_on_labels_with_the_void_label():
    # PIDNet's Cityscapes config: CrossEntropyLoss with 19 class weights. mmseg 1.x looks the
    # weights up with the raw labels, void 255 included, even with ignore_index=255.
    loss = mmseg_cross_entropy_loss()(class_weight=[1.0] * 19, avg_non_ignore=True)
    logits = torch.randn(2, 19, 8, 8)
    label = torch.randint(0, 19, (2, 8, 8))
    identical(lambda: loss(logits, label, ignore_index=255))
    label[:, 0] = 255
    caught(lambda: loss(logits, label, ignore_index=255), "LG409", "mmseg cross_entropy → index", "mmsegmentation#3734")
    with pytest.raises(IndexError):  # what torch itself does on the CPU (a device-side assert on CUDA)
        loss(logits, label, ignore_index=255)


# --- timm ---------------------------------------------------------------------------------

import timm  # noqa: E402


def test_timm_label_smoothing_loss_with_class_ids_beyond_num_classes():
    from timm.loss import LabelSmoothingCrossEntropy

    model = timm.create_model("resnet10t", pretrained=False, num_classes=5).eval()
    x = torch.randn(4, 3, 32, 32)
    loss = LabelSmoothingCrossEntropy(smoothing=0.1)
    identical(lambda: loss(model(x), torch.tensor([0, 4, 2, 1])))
    caught(lambda: loss(model(x), torch.tensor([0, 5, 2, 1])), "LG416", "timm LabelSmoothingCrossEntropy.forward → gather", "num_classes")


def test_timm_mixup_with_fewer_classes_than_the_labels():
    from timm.data import Mixup

    mixup = Mixup(mixup_alpha=0.2, num_classes=10)
    x = torch.randn(4, 3, 8, 8)
    identical(lambda: mixup(x.clone(), torch.tensor([0, 9, 3, 3])))
    caught(lambda: mixup(x.clone(), torch.tensor([0, 10, 3, 3])), "LG416", "timm one_hot → scatter", "Mixup(num_classes=N)")


# --- segmentation_models_pytorch ----------------------------------------------------------

import segmentation_models_pytorch as smp  # noqa: E402


def test_smp_dice_loss_on_masks_with_the_void_label():
    model = smp.Unet("resnet18", encoder_weights=None, encoder_depth=3, decoder_channels=(32, 16, 8), classes=3).eval()
    x = torch.randn(1, 3, 32, 32)
    mask = torch.randint(0, 3, (1, 32, 32))
    dice = smp.losses.DiceLoss("multiclass")
    identical(lambda: dice(model(x), mask))
    mask[0, :4] = 255  # void border, as in VOC/Cityscapes masks
    caught(lambda: dice(model(x), mask), "LG103", "segmentation_models_pytorch DiceLoss.forward → one_hot", "ignore_index=255")
    identical(lambda: smp.losses.DiceLoss("multiclass", ignore_index=255)(model(x), mask))


# --- MONAI --------------------------------------------------------------------------------

import monai  # noqa: E402,F401


def test_monai_dice_loss_on_brats_labels_with_a_gap():
    from monai.losses import DiceLoss
    from monai.networks.nets import UNet

    net = UNet(spatial_dims=2, in_channels=1, out_channels=4, channels=(4, 8), strides=(2,)).eval()
    x = torch.randn(1, 1, 16, 16)
    label = torch.randint(0, 4, (1, 1, 16, 16))
    loss = DiceLoss(to_onehot_y=True, softmax=True)
    identical(lambda: loss(net(x), label))
    label[label == 3] = 4  # BraTS: labels 0, 1, 2, 4
    caught(lambda: loss(net(x), label), "LG417", "MONAI one_hot → scatter", "out_channels")


# --- torchvision --------------------------------------------------------------------------

import torchvision  # noqa: E402,F401


def test_torchvision_faster_rcnn_labels_without_room_for_background():
    from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_320_fpn

    torch.manual_seed(0)
    # Two object classes; num_classes=2 forgot the background (it must be 3).
    model = fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, num_classes=2, min_size=96, max_size=96,
                                                  rpn_batch_size_per_image=32, box_batch_size_per_image=32).train()
    images = [torch.rand(3, 96, 96)]
    targets = [{"boxes": torch.tensor([[5.0, 5.0, 50.0, 60.0], [30.0, 20.0, 90.0, 80.0]]), "labels": torch.tensor([1, 1])}]
    identical(lambda: tuple(model(images, targets).values()))
    targets[0]["labels"] = torch.tensor([1, 2])
    caught(lambda: model(images, targets), "LG418", "torchvision fastrcnn_loss → cross_entropy", "number of object classes + 1")


# --- torch_geometric ----------------------------------------------------------------------
# Importing torch_geometric changes global torch behaviour (index_select on 0-d tensors starts
# raising), which would leak into the other tests of this process: it runs in a child process.

PYG_SCENARIO = """
import json, torch, labelguard
from torch_geometric.nn import GCNConv
torch.manual_seed(0)
conv = GCNConv(4, 8)
x = torch.randn(5, 4)
edges = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])
plain = conv(x, edges)
labelguard.enable()
same = torch.equal(plain, conv(x, edges))
edges[1, 3] = 5  # a node sliced away without relabelling
try:
    conv(x, edges)
    out = {"same": same, "raised": False}
except labelguard.TargetError as err:
    out = {"same": same, "raised": True, "code": err.code, "text": str(err), "user": err.call_site.user}
print(json.dumps(out))
"""


def test_torch_geometric_edge_index_beyond_num_nodes(tmp_path):
    out = child_json(tmp_path, "pyg_scenario.py", PYG_SCENARIO)
    assert out["same"] and out["raised"], out
    assert out["code"] == "LG402", out["text"]
    assert os.path.basename(out["user"][0]) == "pyg_scenario.py"
    assert "your code: pyg_scenario.py:" in out["text"] and "→ torch_geometric " in out["text"]
    assert "relabel_nodes=True" in out["text"]


# --- no library: the user's line and the op -------------------------------------------------


def test_a_direct_call_names_no_library():
    labelguard.enable()
    try:
        with pytest.raises(TargetError) as info:
            F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))
    finally:
        labelguard.disable()
    assert info.value.call_site is not None and not info.value.call_site.library
    assert f"your code: {os.path.basename(__file__)}:" in str(info.value) and " → cross_entropy\n" in str(info.value)
    assert "fix:" not in str(info.value).split("your code:")[1]
