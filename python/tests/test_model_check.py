"""A tokenizer checked against its model (LG809-LG813), with transformers as the truth.

Tiny random-init models of each family and tokenizers trained here with the `tokenizers`
library (no downloads) are saved with `save_pretrained`; labelguard's offline reading of the
directory must agree with transformers on every number it reports, and a tokenizer grown
without `resize_token_embeddings` must be caught by `labelguard scan DIR` and by
`labelguard.check_model(model, tokenizer)` alike, where transformers itself fails on it.
"""

import json
import subprocess
import sys
import warnings

import pytest
import torch
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

import labelguard

transformers.logging.set_verbosity_error()

TEXT = ["the cat sat on the mat", "a dog ate my homework today", "hello world, hello tokenizers"] * 4
SMALL = dict(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def wordpiece(special):
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(TEXT, trainers.WordPieceTrainer(vocab_size=80, special_tokens=special))
    return tok


def byte_bpe(special):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(vocab_size=300, special_tokens=special,
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def unigram(special):
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.train_from_iterator(TEXT, trainers.UnigramTrainer(vocab_size=60, special_tokens=special, unk_token="<unk>"))
    return tok


def fast(tok, **special):
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, **special)


def bert():
    tok = fast(wordpiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]),
               pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    config = transformers.BertConfig(vocab_size=len(tok), max_position_embeddings=24, type_vocab_size=3, pad_token_id=0, **SMALL)
    return transformers.BertForMaskedLM(config).eval(), tok


def roberta():
    tok = fast(byte_bpe(["<s>", "<pad>", "</s>", "<unk>", "<mask>"]),
               bos_token="<s>", pad_token="<pad>", eos_token="</s>", unk_token="<unk>", mask_token="<mask>")
    config = transformers.RobertaConfig(vocab_size=len(tok), max_position_embeddings=20, pad_token_id=1, bos_token_id=0, eos_token_id=2, **SMALL)
    return transformers.RobertaForMaskedLM(config).eval(), tok


def gpt2():
    tok = fast(byte_bpe(["<|endoftext|>"]), bos_token="<|endoftext|>", eos_token="<|endoftext|>")
    config = transformers.GPT2Config(vocab_size=len(tok), n_positions=32, n_embd=16, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0)
    return transformers.GPT2LMHeadModel(config).eval(), tok


def llama_config(tok):
    return transformers.LlamaConfig(vocab_size=len(tok), max_position_embeddings=64, num_key_value_heads=2, bos_token_id=1,
                                    eos_token_id=[2, 3], pad_token_id=None, tie_word_embeddings=False, **SMALL)


def llama():
    tok = fast(unigram(["<unk>", "<s>", "</s>", "<|eot|>"]), unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    return transformers.LlamaForCausalLM(llama_config(tok)).eval(), tok


def llava():
    tok = fast(unigram(["<unk>", "<s>", "</s>", "<|eot|>", "<image>"]), unk_token="<unk>", bos_token="<s>", eos_token="</s>", pad_token="<unk>")
    vision = transformers.CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                                           image_size=28, patch_size=14, projection_dim=16)
    config = transformers.LlavaConfig(vision_config=vision, text_config=llama_config(tok),
                                      image_token_index=tok.convert_tokens_to_ids("<image>"), image_seq_length=4)
    return transformers.LlavaForConditionalGeneration(config).eval(), tok


FAMILIES = {"bert": bert, "roberta": roberta, "gpt2": gpt2, "llama": llama, "llava": llava}


def save(model, tok, path):
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def scan_codes(path):
    """`labelguard scan DIR` (the command inside the package): exit code and finding codes."""
    out = subprocess.run([sys.executable, "-m", "labelguard", "scan", str(path), "--format", "json", "--no-config"],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    found = []
    for part in [report, *report.get("datasets", [])]:
        for f in part["files"]:
            found.extend(x["code"] for x in f["findings"])
    return out.returncode, sorted(found)


def codes(report):
    return [f.code for f in report.findings]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_directory_is_read_as_transformers_reads_it(family, tmp_path):
    model, tok = FAMILIES[family]()
    spec = labelguard.model_spec(save(model, tok, tmp_path))
    text = model.config.get_text_config()
    assert spec["model_type"] == model.config.model_type
    assert spec["vocab_size"] == text.vocab_size
    assert spec["embedding_rows"] == model.get_input_embeddings().num_embeddings
    head = model.get_output_embeddings()
    if spec["head_rows"] is not None:  # a tied head is not saved
        assert spec["head_rows"] == head.out_features
    assert spec["tokenizer"]["len"] == len(tok)
    assert spec["tokenizer"]["max_id"] == max(tok.get_vocab().values())
    assert spec["tokenizer"]["pad_token_id"] == tok.pad_token_id
    special = set(tok.all_special_ids) | {i for i, t in tok.added_tokens_decoder.items() if t.special}
    assert sorted(i for _, i in spec["tokenizer"]["special_tokens"]) == sorted(special)
    assert spec["pad_token_id"] == text.pad_token_id
    eos = text.eos_token_id
    assert spec["eos_token_id"] == ([] if eos is None else eos if isinstance(eos, list) else [eos])
    assert spec["max_position_embeddings"] == getattr(text, "max_position_embeddings", getattr(text, "n_positions", None))
    assert spec["type_vocab_size"] == getattr(text, "type_vocab_size", None)
    if family == "llava":
        assert spec["image_token_id"] == model.config.image_token_index
        assert spec["tokens_per_image"] == model.config.image_seq_length
    # The live model is described alike (the config through the same parser).
    live = labelguard.model_spec(model, tok)
    for key in ("vocab_size", "embedding_rows", "max_position_embeddings", "position_offset", "type_vocab_size",
                "pad_token_id", "eos_token_id", "image_token_id", "tokens_per_image", "learned_positions"):
        assert live[key] == spec[key], key
    assert live["tokenizer"]["len"] == spec["tokenizer"]["len"]
    assert live["tokenizer"]["max_id"] == spec["tokenizer"]["max_id"]
    # Clean: nothing to say but a missing pad token.
    assert scan_codes(tmp_path) == (0, ["LG811"] if tok.pad_token_id is None else [])


@pytest.mark.parametrize("family", ["bert", "roberta", "gpt2"])
def test_the_longest_sequence_is_the_one_transformers_accepts(family, tmp_path):
    model, tok = FAMILIES[family]()
    spec = labelguard.model_spec(save(model, tok, tmp_path))
    longest = spec["max_position_embeddings"] - spec["position_offset"]
    assert spec["learned_positions"] is True
    ids = torch.full((1, longest), 5)
    model(input_ids=ids)
    # One more token fails (an index error, or BERT's token-type buffer that is as long as the table).
    with pytest.raises((IndexError, RuntimeError)):
        model(input_ids=torch.full((1, longest + 1), 5))
    if family == "roberta":
        assert spec["position_offset"] == model.config.pad_token_id + 1


@pytest.mark.parametrize("family", FAMILIES)
def test_a_grown_tokenizer_without_resize_is_caught_and_with_it_is_clean(family, tmp_path):
    model, tok = FAMILIES[family]()
    tok.add_tokens(["newword"])
    tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
    save(model, tok, tmp_path)
    # transformers itself fails on the new token.
    ids = torch.tensor([[tok.convert_tokens_to_ids("newword")]])
    with pytest.raises(IndexError):
        model.get_input_embeddings()(ids)
    rc, found = scan_codes(tmp_path)
    assert rc == 1 and {"LG809", "LG810"} <= set(found), found
    with pytest.raises(labelguard.TargetError) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labelguard.check_model(model, tok)
    assert err.value.code == "LG809"
    assert {"LG809", "LG810"} <= {f.code for f in err.value.findings}
    assert "<|im_start|>" in str(err.value)
    # The saved directory read from Python says the same.
    with pytest.raises(labelguard.TargetError):
        labelguard.check_model(str(tmp_path))

    model.resize_token_embeddings(len(tok))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = labelguard.check_model(model, tok)
    assert not {"LG809", "LG810", "LG812"} & set(codes(report))
    save(model, tok, tmp_path)
    rc, found = scan_codes(tmp_path)
    assert rc == 0 and not {"LG809", "LG810", "LG812"} & set(found), found


def test_no_pad_token_is_a_warning():
    model, tok = gpt2()
    with pytest.warns(labelguard.TargetWarning, match="LG811"):
        report = labelguard.check_model(model, tok)
    assert codes(report) == ["LG811"]
    with pytest.raises(ValueError, match="padding token"):
        tok(["a", "the cat"], padding=True)
    tok.pad_token = tok.eos_token
    assert codes(labelguard.check_model(model, tok)) == []


def test_a_head_smaller_than_its_targets_is_lg812():
    tok = fast(wordpiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]"]), pad_token="[PAD]", unk_token="[UNK]")
    config = transformers.BertConfig(vocab_size=len(tok), max_position_embeddings=16, num_labels=3, **SMALL)
    model = transformers.BertForSequenceClassification(config).eval()
    ids = torch.tensor([[2, 7, 3]])
    assert codes(labelguard.check_model(model, tok, labels=[0, 1, 2, -100])) == []
    with pytest.raises(labelguard.TargetError, match="num_labels=4") as err:
        labelguard.check_model(model, tok, labels=torch.tensor([0, 3]))
    assert err.value.code == "LG812"
    with pytest.raises(IndexError):
        model(input_ids=ids, labels=torch.tensor([3]))

    # A language model's config has a default id2label too: its labels are token ids, not classes.
    mlm, mlm_tok = bert()
    assert codes(labelguard.check_model(mlm, mlm_tok, labels=[5, 40])) == []

    # An untied lm_head left smaller than the vocabulary: the last ids cannot be labels.
    model, tok = llama()
    hidden = model.config.hidden_size
    model.lm_head = torch.nn.Linear(hidden, len(tok) - 2, bias=False)
    with pytest.raises(labelguard.TargetError) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labelguard.check_model(model, tok)
    assert err.value.code == "LG812"
    logits = model.lm_head(torch.zeros(1, hidden))
    with pytest.raises(IndexError, match="out of bounds"):
        torch.nn.functional.cross_entropy(logits, torch.tensor([len(tok) - 1]))


def test_a_bad_directory_is_an_error_naming_the_file(tmp_path):
    model, tok = bert()
    save(model, tok, tmp_path)
    (tmp_path / "tokenizer.json").write_text('{"model": ')
    with pytest.raises(ValueError, match="tokenizer.json"):
        labelguard.check_model(str(tmp_path))
    rc, found = scan_codes(tmp_path)
    assert (rc, found) == (1, ["LG602"])
    (tmp_path / "config.json").unlink()
    with pytest.raises(ValueError, match="config.json"):
        labelguard.model_spec(tmp_path)


CONFIGS = ["llava", "llava_next", "llava_onevision", "video_llava", "qwen2_vl", "qwen2_5_vl", "gemma3", "paligemma",
           "idefics3", "smolvlm", "mllama", "internvl", "aya_vision", "mistral3", "blip-2", "got_ocr2", "janus",
           "xlm-roberta", "camembert", "gpt2", "t5", "bart", "qwen2", "mistral"]


@pytest.mark.parametrize("model_type", CONFIGS)
def test_each_configuration_class_is_read_as_transformers_reads_it(model_type, tmp_path):
    """Every family's default configuration, saved by transformers: the text config's numbers and
    the multimodal ids where transformers keeps them (a nested text_config or the top level)."""
    config = transformers.AutoConfig.for_model(model_type)
    config.save_pretrained(tmp_path)
    spec = labelguard.model_spec(tmp_path)
    text = config.get_text_config()
    assert spec["model_type"] == config.model_type
    assert spec["vocab_size"] == text.vocab_size
    assert spec["pad_token_id"] == text.pad_token_id
    eos = text.eos_token_id
    assert spec["eos_token_id"] == ([] if eos is None else eos if isinstance(eos, list) else [eos])
    assert spec["max_position_embeddings"] == getattr(text, "max_position_embeddings", getattr(text, "n_positions", None))
    image = getattr(config, "image_token_index", getattr(config, "image_token_id", None))
    assert spec["image_token_id"] == image
    per_image = [getattr(config, k, None) for k in ("image_seq_length", "mm_tokens_per_image", "num_query_tokens")]
    per_image.append(getattr(text, "num_image_tokens", None))
    assert spec["tokens_per_image"] == next((n for n in per_image if n is not None), None)
    offset = text.pad_token_id + 1 if model_type in ("xlm-roberta", "camembert") else 0
    assert spec["position_offset"] == offset


def test_llava_tokens_per_image_are_the_processors(tmp_path):
    """Without `image_seq_length` in config.json, the count is LlavaProcessor's own: the image
    placeholder repeated once per patch, as the processor expands it."""
    import numpy as np

    model, tok = llava()
    image_processor = transformers.CLIPImageProcessor(crop_size={"height": 42, "width": 28}, size={"shortest_edge": 42})
    processor = transformers.LlavaProcessor(image_processor=image_processor, tokenizer=tok, patch_size=14, image_token="<image>",
                                            vision_feature_select_strategy="default", num_additional_image_tokens=1)
    save(model, tok, tmp_path)
    processor.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    del config["image_seq_length"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    out = processor(text="<image> a cat", images=np.zeros((50, 50, 3), dtype=np.uint8))
    expanded = out["input_ids"][0].count(model.config.image_token_index)
    assert expanded == 6
    assert labelguard.model_spec(tmp_path)["tokens_per_image"] == expanded
