"""Standard trees read as what they are, on the real libraries' output (issue 42).

- An ImageFolder tree of PNG photos (timm's and torchvision's `train/<class>/<image>`) is a
  classification dataset, with the classes `torchvision.datasets.ImageFolder` finds; colour masks
  beside their images keep their LG606.
- A diffusers pipeline saved by `save_pretrained` is read as models: its text encoder is checked
  against its tokenizer (LG809 where CLIP's `token_embedding` is smaller than the tokenizer, as
  torch itself fails), its UNet and VAE weights are never label arrays.
- A tokenizer whose `model_max_length` is beyond GPT-2's `n_positions` is LG814: a sequence of that
  length fails in transformers itself.

Every model and tokenizer is built here, random-init from tiny configs; nothing is downloaded.
"""

import warnings

import numpy as np
import pytest
import torch
from PIL import Image

from scanning import scan_json

warnings.filterwarnings("ignore")


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def codes(report):
    """(path below the root, code) of every finding of the report and its datasets."""
    out = []
    for part in [report, *report.get("datasets", [])]:
        for f in part["files"]:
            out.extend((f["path"], x["code"]) for x in f["findings"])
        out.extend(("", x["code"]) for x in part.get("dataset", []))
    return out


def layouts(report):
    return report["settings"]["layouts"]


def photo(path, mode="RGB", size=32, seed=0):
    rng = np.random.default_rng(seed)
    shape = (size, size, 3) if mode == "RGB" else (size, size)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8), mode).save(path)


def test_an_image_folder_of_png_photos_has_torchvisions_classes(labelguard, tmp_path):
    from torchvision.datasets import ImageFolder

    train = tmp_path / "train"
    for i, rel in enumerate(["ants/0.png", "ants/1.png", "bees/0.png", "wasps/0.png", "wasps/1.png"]):
        photo(train / rel, seed=i)
    report = scan_json(labelguard, train)
    assert layouts(report) == ["imagefolder"]
    assert codes(report) == []
    assert report["summary"]["errors"] == 0
    truth = ImageFolder(train)
    names = [c["name"] for c in report["histogram"]["classes"]]
    assert names == truth.classes
    counts = [c["count"] for c in report["histogram"]["classes"]]
    assert counts == [sum(1 for _, t in truth.samples if t == k) for k in range(len(truth.classes))]

    # Grey photos (MNIST saved as PNG folders), with the splits above the classes.
    mnist = tmp_path / "mnist"
    for split in ["train", "test"]:
        for digit in range(3):
            photo(mnist / split / str(digit) / "a.png", mode="L", size=28, seed=digit)
    report = scan_json(labelguard, mnist)
    assert layouts(report) == ["imagefolder"]
    assert report["summary"]["errors"] == 0, codes(report)
    assert [c["name"] for c in report["histogram"]["classes"]] == ImageFolder(mnist / "train").classes


def colour_mask(path, size=32):
    colours = np.array([[128, 64, 128], [70, 70, 70], [220, 20, 60]], np.uint8)
    ids = (np.arange(size)[:, None] * 3 // size).repeat(size, 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(colours[ids], "RGB").save(path)


def test_colour_masks_beside_their_images_keep_lg606(labelguard, tmp_path):
    root = tmp_path / "camvid"
    for i, stem in enumerate(["0001", "0002"]):
        photo(root / "images" / f"{stem}.png", seed=i)
        colour_mask(root / "labels" / f"{stem}.png")
    report = scan_json(labelguard, root)
    assert layouts(report) == ["paired"]
    found = codes(report)
    assert sorted(p for p, c in found if c == "LG606") == [str(root / "labels" / "0001.png"), str(root / "labels" / "0002.png")]


TEXT = ["a photo of a cat", "a painting of a dog on the moon", "an astronaut riding a horse"] * 4


def word_tokenizer(model_max_length):
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(TEXT, trainers.WordLevelTrainer(special_tokens=["<pad>", "<unk>", "<|startoftext|>", "<|endoftext|>"]))
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>", bos_token="<|startoftext|>",
                                                eos_token="<|endoftext|>", model_max_length=model_max_length)


def tiny_pipeline(tok):
    """Stable Diffusion's components, tiny and random-init, with this tokenizer."""
    import diffusers
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    encoder = transformers.CLIPTextModel(transformers.CLIPTextConfig(
        vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        max_position_embeddings=16, projection_dim=16,
        pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id))
    unet = diffusers.UNet2DConditionModel(
        block_out_channels=(4, 8), layers_per_block=1, sample_size=8, in_channels=4, out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"), up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=16, norm_num_groups=4, attention_head_dim=2)
    vae = diffusers.AutoencoderKL(block_out_channels=[4], in_channels=3, out_channels=3, down_block_types=["DownEncoderBlock2D"],
                                  up_block_types=["UpDecoderBlock2D"], latent_channels=4, norm_num_groups=4)
    return diffusers.StableDiffusionPipeline(vae=vae, text_encoder=encoder, tokenizer=tok, unet=unet, scheduler=diffusers.PNDMScheduler(),
                                             safety_checker=None, feature_extractor=None, requires_safety_checker=False)


def test_a_diffusers_pipeline_is_read_as_models(labelguard, tmp_path):
    valid = tmp_path / "valid"
    tiny_pipeline(word_tokenizer(16)).save_pretrained(valid)
    report = scan_json(labelguard, valid)
    assert layouts(report) == ["model"]
    assert codes(report) == []  # no LG201 on unet/ or vae/ weights, no LG813: CLIP's embedding is read
    assert report["summary"]["status"] != "error"

    # The planted defect: tokens added to the tokenizer, the text encoder not resized.
    tok = word_tokenizer(16)
    pipe = tiny_pipeline(tok)
    tok.add_tokens(["<cat-toy>"])
    pipe.save_pretrained(tmp_path / "grown")
    new_id = tok.convert_tokens_to_ids("<cat-toy>")
    with pytest.raises(IndexError):  # torch itself: the id is not a row of token_embedding
        pipe.text_encoder(torch.tensor([[new_id]]))
    report = scan_json(labelguard, tmp_path / "grown")
    assert codes(report) == [(str(tmp_path / "grown" / "text_encoder" / "config.json"), "LG809")]


def gpt2(model_max_length):
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                                pad_token="<|endoftext|>", model_max_length=model_max_length)
    config = transformers.GPT2Config(vocab_size=len(fast), n_positions=32, n_embd=16, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0)
    return transformers.GPT2LMHeadModel(config).eval(), fast


@pytest.mark.parametrize("model_max_length", [32, 64])
def test_a_tokenizer_longer_than_gpt2s_positions_is_lg899(labelguard, tmp_path, model_max_length):
    model, tok = gpt2(model_max_length)
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    # The truth: a block of model_max_length tokens (run_clm.py's default block size).
    ids = torch.full((1, tok.model_max_length), 5)
    if model_max_length <= model.config.n_positions:
        model(input_ids=ids)
    else:
        with pytest.raises(IndexError):
            model(input_ids=ids)
    report = scan_json(labelguard, tmp_path)
    found = [c for _, c in codes(report)]
    assert found == ([] if model_max_length <= 32 else ["LG814"])


def test_diffusers_fine_tuning_data_is_photos_not_masks(labelguard, tmp_path):
    """DreamBooth's instance images and train_text_to_image's captioned image folder, as PIL
    writes them: photos without labels (exit 0), never colour masks."""
    import json

    dreambooth = tmp_path / "dog"
    for i in range(4):
        photo(dreambooth / f"{i}.png", seed=i, size=48)
    report = scan_json(labelguard, dreambooth)
    assert codes(report) == []
    assert report["summary"]["errors"] == 0

    # The same photos as JPEG files in one folder (DCGAN's celeba): photos, not "nothing to scan".
    celeba = tmp_path / "celeba"
    (celeba / "img_align_celeba").mkdir(parents=True)
    for i, png in enumerate(sorted(dreambooth.iterdir())):
        Image.open(png).save(celeba / "img_align_celeba" / f"{i:06d}.jpg")
    report = scan_json(labelguard, celeba)
    assert codes(report) == [] and report["summary"]["files_scanned"] == 4

    captions = tmp_path / "captions"
    with_meta = captions / "train"
    for i in range(3):
        photo(with_meta / f"{i}.png", seed=10 + i)
    (with_meta / "metadata.jsonl").write_text(
        "".join(json.dumps({"file_name": f"{i}.png", "text": "a drawing of a pokemon"}) + "\n" for i in range(3)))
    from datasets import load_dataset

    assert load_dataset("imagefolder", data_dir=str(captions), split="train", cache_dir=str(tmp_path / "cache")).column_names == ["image", "text"]
    report = scan_json(labelguard, captions)
    assert codes(report) == []
