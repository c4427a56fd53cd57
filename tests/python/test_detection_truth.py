"""labelguard scan's detection verdicts against the libraries that train on the data.

- COCO against torchvision: a random-init Faster R-CNN trained one step on each generated
  single-image COCO file, with the category ids as torchvision's detection reference passes
  them (as stored, background 0). torchvision refuses a degenerate box (an AssertionError from
  `torch._assert`, before the backbone) and its classification loss fails on a class id outside the head (on CUDA the
  device-side assert; on the CPU an IndexError): the scan must say LG705 exactly for the
  first and LG701 exactly for the second.
- YOLO against ultralytics: `ultralytics.data.utils.verify_image_label`, the function its
  dataset runs on every image/label pair, over generated label files: the files it refuses
  must be the files the scan gives an error that refuses the file, and the files whose
  duplicate lines it removes the files with LG711.
"""

import json
import random

import pytest
from scanning import file_findings, scan_json

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")
Image = pytest.importorskip("PIL.Image")




# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def codes(report):
    found = {x["code"] for _, x in file_findings(report)}
    for part in [report, *report.get("datasets", [])]:
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
    except AssertionError as e:  # torch._assert in GeneralizedRCNN.forward
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
        found = codes(scan_json(labelguard, root, "--num-classes", str(num_classes), "--framework", "torchvision"))
        assert ("LG705" in found) == (truth == "degenerate"), (trial, truth, found, doc)
        if truth != "degenerate":
            assert ("LG701" in found) == (truth == "class"), (trial, truth, found, doc, num_classes)
    assert all(n > 0 for n in seen.values()), seen


def yolo_line(rng, nc, kind):
    """One label line of `kind`: a valid box or polygon, or one defect ultralytics judges."""
    c = rng.randrange(nc)
    box = [round(rng.uniform(0.3, 0.7), 4), round(rng.uniform(0.3, 0.7), 4),
           round(rng.uniform(0.05, 0.5), 4), round(rng.uniform(0.05, 0.5), 4)]
    if kind == "box":
        return f"{c} " + " ".join(map(str, box))
    if kind == "polygon":
        pts = [round(rng.uniform(0.05, 0.95), 4) for _ in range(2 * rng.randint(3, 6))]
        return f"{c} " + " ".join(map(str, pts))
    if kind == "class_beyond":
        return f"{nc + rng.randrange(3)} " + " ".join(map(str, box))
    if kind == "class_negative":
        return "-1 " + " ".join(map(str, box))
    if kind == "class_fraction":
        return f"{c}.5 " + " ".join(map(str, box))
    if kind == "inside_tolerance":  # ultralytics allows 1% past the border
        return f"{c} 1.005 0.5 0.2 0.2"
    if kind == "outside":
        return f"{c} {rng.choice(['1.3', '2', '37.5'])} 0.5 0.2 0.2"
    if kind == "negative":
        return f"{c} -0.2 0.5 0.2 0.2"
    if kind == "six_columns":
        return f"{c} " + " ".join(map(str, box)) + " 0.9"
    if kind == "odd_polygon":
        return f"{c} 0.1 0.1 0.5 0.1 0.5 0.5 0.3"
    if kind == "polygon_edge":  # a point past the border; the polygon's box stays inside
        return f"{c} 0.2 0.2 0.6 0.2 1.03 0.5 0.4 0.7"
    if kind == "polygon_outside":  # the polygon's box is outside
        return f"{c} 1.2 0.2 1.5 0.2 1.4 0.5"
    if kind == "text":
        return f"{c} 0.5 0.5 wide 0.2"
    raise ValueError(kind)


DEFECTS = ["class_beyond", "class_negative", "class_fraction", "inside_tolerance", "outside",
           "negative", "six_columns", "odd_polygon", "polygon_edge", "polygon_outside", "text"]


def yolo_file(rng, nc):
    """A label file: boxes or polygons, sometimes a defect, a duplicate, a mix, or empty."""
    r = rng.random()
    if r < 0.06:
        return ""
    kind = "polygon" if rng.random() < 0.3 else "box"
    lines = [yolo_line(rng, nc, kind) for _ in range(rng.randint(1, 5))]
    if rng.random() < 0.45:
        lines.insert(rng.randrange(len(lines) + 1), yolo_line(rng, nc, rng.choice(DEFECTS)))
    if rng.random() < 0.1:
        lines.append(yolo_line(rng, nc, "polygon" if kind == "box" else "box"))
    if rng.random() < 0.12:
        lines.append(rng.choice(lines))
    return "\n".join(lines) + "\n"


REFUSING = {"LG602", "LG701", "LG706", "LG709", "LG710"}


def test_yolo_verdicts_are_ultralytics(labelguard, tmp_path):
    utils = pytest.importorskip("ultralytics.data.utils")
    rng = random.Random(2024)
    nc = 5
    root = tmp_path / "yolo"
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    (root / "data.yaml").write_text("path: .\ntrain: images/train\nval: images/train\nnames: [a, b, c, d, e]\n")
    truth = {}
    for i in range(160):
        image = root / "images" / "train" / f"{i:04}.jpg"
        Image.new("RGB", (32, 32), (i % 255, 0, 0)).save(image)
        label = root / "labels" / "train" / f"{i:04}.txt"
        label.write_text(yolo_file(rng, nc))
        out = utils.verify_image_label((str(image), str(label), "", False, nc, 0, 0, False))
        nm, nf, ne, corrupt, msg = out[5:10]
        truth[label.name] = ("refused" if corrupt else "empty" if ne else "ok",
                             "duplicate labels removed" in msg)
    report = scan_json(labelguard, root)
    found = {}
    for f in report["files"]:
        found[f["path"].rsplit("/", 1)[-1]] = {x["code"] for x in f["findings"]}
    kinds = {"refused": 0, "empty": 0, "ok": 0, "dups": 0}
    for name, (verdict, dups) in sorted(truth.items()):
        codes_here = found.get(name, set())
        kinds[verdict] += 1
        kinds["dups"] += dups
        assert (verdict == "refused") == bool(codes_here & REFUSING), (name, verdict, codes_here,
                                                                      (root / "labels" / "train" / name).read_text())
        if verdict != "refused":
            assert dups == ("LG711" in codes_here), (name, dups, codes_here)
    assert all(n > 3 for n in kinds.values()), kinds
