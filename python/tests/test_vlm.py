"""Vision-language models (issue 23): the merge of image features into the text embeddings at the
image placeholder tokens (`inputs_embeds.masked_scatter(mask, features)`), in random-init tiny
LLaVA and Idefics3 models (nothing downloaded), and `Tensor.masked_scatter` itself. A mismatch of
placeholder tokens and feature vectors is refused under `enable()` with LG419, the user's line,
the library call and the fix, before transformers' own ValueError (in `get_placeholder_mask`,
`inputs_merger`) and before torch's error; each valid twin is bit-identical."""

import pytest
import torch

import labelguard
from labelguard import TargetError
from library_checks import caught, identical, refusal

transformers = pytest.importorskip("transformers")
transformers.logging.set_verbosity_error()

IMAGE = 63  # the image placeholder token of both tiny models
TEXT = dict(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
            num_key_value_heads=2, max_position_embeddings=64, pad_token_id=0)
FIX = "transformers fix: the image (video) placeholder tokens in input_ids must match the image features one for one"


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def llava():
    """LLaVA with a CLIP tower on 8x8 images in 4x4 patches, all features kept: 5 image tokens."""
    torch.manual_seed(0)
    vision = transformers.CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                                           image_size=8, patch_size=4, projection_dim=16)
    config = transformers.LlavaConfig(vision_config=vision, text_config=transformers.LlamaConfig(**TEXT), image_token_id=IMAGE,
                                      vision_feature_layer=-1, vision_feature_select_strategy="full")
    return transformers.LlavaForConditionalGeneration(config).eval()


def idefics3():
    """Idefics3 on 8x8 images in 2x2 patches, pixel-shuffled by 2: 4 image tokens."""
    torch.manual_seed(0)
    vision = transformers.Idefics3VisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                                               image_size=8, patch_size=2)
    config = transformers.Idefics3Config(vision_config=vision.to_dict(), text_config=TEXT, image_token_id=IMAGE, scale_factor=2)
    return transformers.Idefics3ForConditionalGeneration(config).eval()


def prompt(image_tokens, batch=1):
    return torch.tensor([[1, 7] + [IMAGE] * image_tokens + [5, 6, 2]] * batch)


def test_llava_image_tokens_that_disagree_with_the_features_are_refused_before_transformers_check():
    model, pixels = llava(), torch.randn(2, 3, 8, 8)
    identical(lambda: model(input_ids=prompt(5, 2), pixel_values=pixels, labels=prompt(5, 2)).logits)
    # One placeholder too many (a truncated neighbour, a hand-written <image>), and one too few
    # (truncation cut an image's last token): transformers would raise ValueError for both.
    for tokens in (6, 4):
        err = caught(lambda: model(input_ids=prompt(tokens, 2), pixel_values=pixels), "LG419",
                     "transformers LlavaModel.forward → masked_scatter", FIX)
        text = str(err)
        assert f"{tokens * 2} image placeholder tokens in input_ids for 10 image feature vectors (of size 16)" in text, text
        assert "LlavaModel.get_placeholder_mask" in text and "processor" in text, text
        assert err.findings[0].verdict == "error"


def test_llava_with_transformers_check_off_is_refused_before_the_masked_scatter_error(monkeypatch):
    """TRANSFORMERS_DISABLE_TORCH_CHECK=1 drops transformers' check: the merge reaches
    masked_scatter, whose CPU kernel raises (CUDA asserts); labelguard still refuses it first."""
    monkeypatch.setenv("TRANSFORMERS_DISABLE_TORCH_CHECK", "1")
    model, pixels = llava(), torch.randn(1, 3, 8, 8)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        model(input_ids=prompt(6), pixel_values=pixels)
    err = caught(lambda: model(input_ids=prompt(6), pixel_values=pixels), "LG419",
                 "transformers LlavaModel.forward → masked_scatter", FIX)
    assert "6 image placeholder tokens in input_ids for 5 image feature vectors" in str(err)


def test_idefics3_inputs_merger_is_checked_too():
    model, pixels = idefics3(), torch.randn(1, 1, 3, 8, 8)
    identical(lambda: model(input_ids=prompt(4), pixel_values=pixels).logits)
    err = caught(lambda: model(input_ids=prompt(5), pixel_values=pixels), "LG419",
                 "transformers Idefics3Model.forward → masked_scatter", FIX)
    assert "5 image placeholder tokens in input_ids for 4 image feature vectors" in str(err)
    assert "Idefics3Model.inputs_merger" in str(err)


def test_disable_leaves_no_wrapper_behind():
    own = transformers.PreTrainedModel.__dict__["__init_subclass__"]
    labelguard.enable()
    try:
        assert hasattr(transformers.LlavaModel.get_placeholder_mask, "__labelguard_original__")
        assert transformers.PreTrainedModel.__dict__["__init_subclass__"] is not own
    finally:
        labelguard.disable()
    assert not hasattr(transformers.LlavaModel.get_placeholder_mask, "__labelguard_original__")
    assert transformers.PreTrainedModel.__dict__["__init_subclass__"] is own
    assert "__init_subclass__" not in torch.nn.Module.__dict__


def test_a_placeholder_step_defined_after_enable_is_wrapped():
    """transformers imports its model files lazily: a VLM class made after enable() is wrapped
    too."""
    labelguard.enable()
    try:
        namespace = {"__module__": "transformers.models.fake_vlm.modeling_fake_vlm"}
        exec("def get_placeholder_mask(self, input_ids, inputs_embeds, image_features):\n    return 'original'", namespace)
        cls = type("FakeVlmModel", (transformers.LlavaModel,), namespace)
        assert hasattr(cls.get_placeholder_mask, "__labelguard_original__")
    finally:
        labelguard.disable()
    assert cls.get_placeholder_mask(None, None, None, None) == "original"


def test_masked_scatter_called_directly():
    x, src = torch.zeros(2, 3), torch.arange(6.0)
    mask = torch.tensor([[True, False, True], [False, True, True]])
    identical(lambda: x.masked_scatter(mask, src))
    identical(lambda: torch.masked_scatter(x, mask, src[:4]))
    identical(lambda: x.clone().masked_scatter_(mask, src))
    for call in (lambda: x.masked_scatter(mask, src[:3]), lambda: x.clone().masked_scatter_(mask, src[:3]),
                 lambda: torch.masked_scatter(x, mask, src[:3])):
        err = refusal(call)
        assert err.code == "LG419" and err.findings[0].verdict == "device_assert", str(err)
        assert "4 True in the mask (broadcast to [2, 3]) for 3 elements of source [3]" in str(err)
    # The dtype and shape errors PyTorch raises itself are named too.
    assert refusal(lambda: x.masked_scatter(mask.to(torch.uint8), src)).code == "LG205"
    assert refusal(lambda: x.masked_scatter(mask, src.double())).code == "LG209"
    assert refusal(lambda: x.masked_scatter(torch.ones(4, dtype=torch.bool), src)).code == "LG211"


def test_a_refused_call_leaves_the_tensor_untouched():
    """The CPU kernel writes the True entries it reaches before it raises; labelguard refuses
    the in-place call before any is written."""
    x = torch.zeros(4)
    labelguard.enable()
    try:
        with pytest.raises(TargetError):
            x.masked_scatter_(torch.ones(4, dtype=torch.bool), torch.ones(3))
    finally:
        labelguard.disable()
    assert torch.equal(x, torch.zeros(4))
    with pytest.raises(RuntimeError):
        x.masked_scatter_(torch.ones(4, dtype=torch.bool), torch.ones(3))
    assert torch.equal(x, torch.tensor([1.0, 1.0, 1.0, 0.0]))


def test_device_path_counts_a_merge_mask_as_the_host_path_does():
    """On CUDA the mask is judged from its extreme values first; a count needs the real mask,
    which travels without the repeats of its expanded hidden dimension ([B, L, 1], not
    [B, L, hidden]). Run on CPU tensors treated as device tensors."""
    from labelguard import _check

    embeds = torch.randn(2, 9, 32)
    for tokens, verdict in ((5, "ok"), (6, "device_assert")):
        ids = prompt(tokens, 2)[:, :9]
        mask = (ids == IMAGE).unsqueeze(-1).expand_as(embeds)
        call = {"input": embeds, "mask": mask, "source": torch.randn(10, 32)}
        host = _check._host_check("masked_scatter", call, {})
        # (the embeddings and the features are read by shape: `check_call` passes them as abstract)
        dev = _check._device_check("masked_scatter", dict(call), {}, _all_on_device=True, abstract=frozenset({"input", "source"}))
        assert host.verdict == dev.verdict == verdict
        assert [f.code for f in host.findings] == [f.code for f in dev.findings]
        assert tuple(_check._distinct(mask).shape) == (2, 9, 1)
        assert torch.equal(_check._fetch([mask])[0], mask)
