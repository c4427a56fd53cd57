"""Library-level causes found by a held-out sweep of enable() (issue 13): the word, position and
decoder tables of transformers models other than BERT (GPT-2's wte/wpe, Llama's and T5's
embed_tokens, RoBERTa's position gather, generate() past the position table), one-hot targets
built by advanced indexing (torchvision's RetinaNet head, mmseg's sigmoid cross entropy), MONAI's
one-hot of one channel-first label map and torch_geometric's pooling by a batch vector. Random-init
models from tiny configs, nothing downloaded; each bad call is refused with the library's fix,
each valid twin is bit-identical."""

import pytest
import torch

from library_checks import caught, child_json, identical, mmseg_cross_entropy_loss

transformers = pytest.importorskip("transformers")
transformers.logging.set_verbosity_error()


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def gpt2(positions=16):
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=60, n_positions=positions, n_embd=16, n_layer=1, n_head=2, pad_token_id=0, eos_token_id=59)
    return transformers.GPT2LMHeadModel(config).eval()


def llama():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=60, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                                      num_key_value_heads=1, max_position_embeddings=32)
    return transformers.LlamaForCausalLM(config).eval()


# The library-level fix (the core's own fix names resize_token_embeddings among three causes).
RESIZE = "transformers fix: the tokenizer has more tokens than the model's vocabulary: call model.resize_token_embeddings(len(tokenizer))"


def test_gpt2_pad_token_added_without_resizing_the_word_table():
    model, ids = gpt2(), torch.randint(0, 60, (2, 12))
    identical(lambda: model(input_ids=ids, labels=ids).loss)
    ids[:, -3:] = 60  # tokenizer.add_special_tokens({"pad_token": "[PAD]"}): id 60
    caught(lambda: model(input_ids=ids), "LG401", "transformers GPT2Model.forward → embedding", RESIZE)


def test_llama_pad_token_added_without_resizing_embed_tokens():
    model, ids = llama(), torch.randint(0, 60, (2, 10))
    mask = torch.ones_like(ids)
    mask[1, 7:] = 0
    identical(lambda: model(input_ids=ids, attention_mask=mask, labels=ids.masked_fill(mask == 0, -100)).loss)
    ids[1, 7:] = 60
    caught(lambda: model(input_ids=ids, attention_mask=mask), "LG401", "transformers LlamaModel.forward → embedding", RESIZE)


def test_gpt2_generate_past_the_position_table():
    model, prompt = gpt2(positions=12), torch.randint(1, 59, (1, 8))
    identical(lambda: model.generate(prompt, max_new_tokens=4, do_sample=False))
    # Under the cache each step looks up one position: the ids alone do not show a sequence.
    err = caught(lambda: model.generate(prompt, max_new_tokens=10, min_new_tokens=10, do_sample=False),
                 "LG401", "transformers GPT2Model.forward → embedding", "the prompt plus max_new_tokens")
    assert "resize_token_embeddings" not in str(err).split("transformers fix:")[1]


def test_roberta_sequence_longer_than_its_positions_after_the_padding_offset():
    torch.manual_seed(0)
    config = transformers.RobertaConfig(vocab_size=60, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                                        max_position_embeddings=18, type_vocab_size=1, pad_token_id=1)
    model = transformers.RobertaModel(config).eval()
    identical(lambda: model(input_ids=torch.randint(2, 60, (2, 16))).last_hidden_state)  # positions 2..17
    long = torch.randint(2, 60, (2, 17))  # positions 2..18: 18 is past the table
    err = caught(lambda: model(input_ids=long), "LG415", "transformers RobertaEmbeddings.forward → gather",
                 "max_position_embeddings - padding_idx - 1")
    assert "counted from padding_idx + 1 = 2 (RoBERTa-style)" in str(err) and "max_length=16" in str(err)
    # Token types given: the gather is skipped and the position embedding looks the positions up.
    types = torch.zeros_like(long)
    err = caught(lambda: model(input_ids=long, token_type_ids=types), "LG415", "transformers RobertaEmbeddings.forward → embedding", "max_length=16")
    # A padded row (positions stop, padding_idx after) next to the long one.
    long[1, 12:] = 1
    caught(lambda: model(input_ids=long), "LG415", "transformers RobertaEmbeddings.forward → gather", "max_length=16")


def test_t5_labels_padded_with_minus_one_reach_the_decoder_embedding():
    torch.manual_seed(0)
    config = transformers.T5Config(vocab_size=60, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2, decoder_start_token_id=0, pad_token_id=0)
    model = transformers.T5ForConditionalGeneration(config).eval()
    ids, labels = torch.randint(0, 60, (2, 8)), torch.randint(1, 60, (2, 6))
    labels[:, 4:] = -100
    identical(lambda: model(input_ids=ids, labels=labels).loss)
    labels[:, 4:] = -1  # shift_right maps only -100 to pad_token_id
    err = caught(lambda: model(input_ids=ids, labels=labels), "LG401", "transformers T5Stack.forward → embedding", "padded with -100 (not -1)")
    assert err.call_site.library[-1].function == "T5ForConditionalGeneration.forward"


def test_monai_as_discrete_one_hot_of_a_channel_first_label_map():
    from monai.transforms import AsDiscrete

    # Validation post-processing: one [1, H, W] label map at a time, one-hot along dim 0.
    to_onehot = AsDiscrete(to_onehot=3)
    label = torch.randint(0, 3, (1, 8, 8))
    identical(lambda: to_onehot(label))
    label[0, 2, 2:5] = 3
    err = caught(lambda: to_onehot(label), "LG416", "MONAI one_hot → scatter", "set the network's out_channels")
    assert "the labels reach 3 on a dimension of 3 classes" in str(err)


def test_torchvision_retinanet_one_hot_target_with_a_label_equal_to_num_classes():
    from torchvision.models.detection import retinanet_resnet50_fpn

    torch.manual_seed(0)
    # Two object classes and background: num_classes=3 would do; 2 forgot the background.
    model = retinanet_resnet50_fpn(weights=None, weights_backbone=None, num_classes=2, min_size=64, max_size=64).train()
    images = [torch.rand(3, 64, 64)]
    targets = [{"boxes": torch.tensor([[4.0, 4.0, 40.0, 44.0], [20.0, 16.0, 60.0, 60.0]]), "labels": torch.tensor([1, 1])}]
    identical(lambda: tuple(model(images, targets).values()))
    targets[0]["labels"] = torch.tensor([1, 2])
    # The head builds its one-hot target with `gt_classes_target[foreground, labels] = 1.0`.
    err = caught(lambda: model(images, targets), "LG416", "torchvision RetinaNetClassificationHead.compute_loss → index_put",
                 "number of object classes + 1")
    assert "the labels reach 2 on a dimension of 2 classes" in str(err)


def test_mmseg_sigmoid_cross_entropy_one_hot_with_a_label_equal_to_num_classes():
    loss = mmseg_cross_entropy_loss()(use_sigmoid=True)
    logits = torch.randn(2, 4, 8, 8)
    label = torch.randint(0, 4, (2, 8, 8))
    label[:, 0] = 255
    identical(lambda: loss(logits, label, ignore_index=255))
    label[1, 3, 3] = 4
    # _expand_onehot_labels: bin_labels[n, labels[valid], h, w] = 1 on [N, C, H, W].
    caught(lambda: loss(logits, label, ignore_index=255), "LG416", "mmseg _expand_onehot_labels → index_put", "num_classes")


# torch_geometric changes global torch behaviour on import: in a child process.
PYG_POOLING = """
import json, torch, labelguard
from torch_geometric.nn import global_mean_pool
from torch_geometric.utils import to_dense_batch
x = torch.randn(6, 4)
batch = torch.tensor([0, 0, 1, 1, 2, 2])
plain = global_mean_pool(x, batch, size=3)
labelguard.enable()
out = {"same": torch.equal(plain, global_mean_pool(x, batch, size=3))}
for name, call in (("pool", lambda: global_mean_pool(x, batch, size=2)), ("dense", lambda: to_dense_batch(x, batch, batch_size=2))):
    try:
        call()
        out[name] = None
    except labelguard.TargetError as err:
        out[name] = {"code": err.code, "text": str(err), "user": err.call_site.user}
print(json.dumps(out))
"""


def test_torch_geometric_pooling_with_a_size_below_the_batch_vector(tmp_path):
    out = child_json(tmp_path, "pyg_pooling.py", PYG_POOLING)
    assert out["same"], out
    for name, entry in (("pool", "global_mean_pool"), ("dense", "to_dense_batch")):
        err = out[name]
        assert err is not None and err["code"] == "LG402", out
        assert err["user"][0].endswith("pyg_pooling.py"), err
        assert f"(the call entered torch_geometric at {entry})" in err["text"], err["text"]
        assert "size= (batch_size=) must be at least batch.max() + 1" in err["text"], err["text"]
        assert "relabel_nodes" not in err["text"], err["text"]
