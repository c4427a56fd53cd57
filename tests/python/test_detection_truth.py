"""labelguard scan's detection verdicts against the libraries that train on the data.

- COCO against torchvision: a random-init Faster R-CNN trained one step on each generated
  single-image COCO file, with the category ids as torchvision's detection reference passes
  them (as stored, background 0). torchvision refuses a degenerate box (ValueError, before
  the backbone) and its classification loss fails on a class id outside the head (on CUDA the
  device-side assert; on the CPU an IndexError): the scan must say LG705 exactly for the
  first and LG701 exactly for the second.
- YOLO against ultralytics: `ultralytics.data.utils.verify_image_label`, the function its
  dataset runs on every image/label pair, over generated label files: the files it refuses
  must be the files the scan gives an error that refuses the file, and the files whose
  duplicate lines it removes the files with LG711.
"""

import json
import random
import subprocess

import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")
Image = pytest.importorskip("PIL.Image")


def scan(labelguard, path, *args):
    out = subprocess.run(
        [labelguard, "scan", str(path), "--format", "json", "--no-config", *args],
        capture_output=True,
        text=True,
    )
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def codes(report):
    found = set()
    for part in [report, *report.get("datasets", [])]:
        for f in part["files"]:
            found.update(x["code"] for x in f["findings"])
        found.update(x["code"] for x in part["dataset"])
    return found


def coco_case(rng):
    """One image, a few annotations, categories with gaps; sometimes a degenerate box, an id
    beyond the head or an undeclared id."""
    declared = sorted(rng.sample(range(1, 12), rng.randint(2, 6)))
    anns = []
    for i in range(rng.randint(1, 4)):
        cid = rng.choice(declared)
        if rng.random() < 0.15:
            cid = rng.randint(1, 14)  # maybe undeclared, maybe beyond the head
        x, y = rng.randint(0, 40), rng.randint(0, 40)
        w, h = rng.randint(4, 20), rng.randint(4, 20)
        if rng.random() < 0.15:
            w = rng.choice([0, -3])
        anns.append({"id": i + 1, "image_id": 1, "category_id": cid, "bbox": [x, y, w, h],
                     "area": max(w, 0) * h, "iscrowd": 0})
    doc = {
        "images": [{"id": 1, "file_name": "a.png", "width": 64, "height": 64}],
        "annotations": anns,
        "categories": [{"id": c, "name": f"c{c}"} for c in declared],
    }
    return doc


def torchvision_verdict(model, doc):
    boxes = torch.tensor([[x, y, x + w, y + h] for x, y, w, h in (a["bbox"] for a in doc["annotations"])],
                         dtype=torch.float32)
    labels = torch.tensor([a["category_id"] for a in doc["annotations"]], dtype=torch.int64)
    image = torch.rand(3, 64, 64, generator=torch.Generator().manual_seed(0))
    try:
        model([image], [{"boxes": boxes, "labels": labels}])
    except ValueError as e:
        assert "positive height and width" in str(e), e
        return "degenerate"
    except IndexError as e:
        assert "out of bounds" in str(e), e
        return "class"
    return "ok"


def test_coco_verdicts_are_torchvisions(labelguard, tmp_path):
    from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_320_fpn

    torch.manual_seed(0)
    models = {}
    rng = random.Random(24)
    seen = {"ok": 0, "degenerate": 0, "class": 0}
    for trial in range(36):
        num_classes = rng.choice([4, 8, 12])
        if num_classes not in models:
            m = fasterrcnn_mobilenet_v3_large_320_fpn(
                weights=None, weights_backbone=None, num_classes=num_classes,
                min_size=64, max_size=64)
            models[num_classes] = m.train()
        doc = coco_case(rng)
        root = tmp_path / f"t{trial}"
        (root / "annotations").mkdir(parents=True)
        (root / "images").mkdir()
        Image.new("RGB", (64, 64)).save(root / "images" / "a.png")
        (root / "annotations" / "instances_train.json").write_text(json.dumps(doc))
        truth = torchvision_verdict(models[num_classes], doc)
        seen[truth] += 1
        found = codes(scan(labelguard, root, "--num-classes", str(num_classes), "--framework", "torchvision"))
        assert ("LG705" in found) == (truth == "degenerate"), (trial, truth, found, doc)
        if truth != "degenerate":
            assert ("LG701" in found) == (truth == "class"), (trial, truth, found, doc, num_classes)
    assert all(n > 0 for n in seen.values()), seen
