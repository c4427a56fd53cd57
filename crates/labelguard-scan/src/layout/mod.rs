//! Layouts: which files are labels, which image each mask belongs to, and which split each
//! file is in.
//!
//! Recognised, in order of precedence (`list::LAYOUTS`, which a test holds this list to: with
//! `--layout auto`, the default, each tree of a folder goes to the first layout that claims it):
//!
//! * **custom**: `--mask-glob` selects the masks, `--image-template` names each mask's image
//!   with `{stem}`, `{name}`, `{dir}`, `{subdir}` (the mask's directory below the glob's literal
//!   prefix) and `{split}`;
//! * **cityscapes**: `gtFine/<split>/<city>/<stem>_gtFine_labelTrainIds.png` (or `gtCoarse`),
//!   paired with `leftImg8bit/<split>/<city>/<stem>_leftImg8bit.png`. A stem without a
//!   `labelTrainIds` file is scanned through its `labelIds` file, so the trap is named (LG105);
//! * **voc**: `SegmentationClass/<stem>.png` with `JPEGImages/<stem>.jpg`, splits from
//!   `ImageSets/Segmentation/{train,val,test}.txt`, and the detection annotations
//!   `Annotations/<stem>.xml`;
//! * **camvid**: CamVid's widely used copy, `class_dict.csv` (`name,r,g,b`) beside
//!   `train/<stem>.png` and its colour masks `train_labels/<stem>_L.png` (and `val`, `test`):
//!   the masks mapped to ids with the file's colours, index = row; and SegNet's copy,
//!   `train/x.png` with its grey index mask `trainannot/x.png`;
//! * **model**: a Hugging Face model directory (`config.json` beside `tokenizer.json`, the
//!   tokenizer's other files or the weights): its tokenizer checked against the model; a
//!   diffusers pipeline (`model_index.json`): each text encoder checked against its tokenizer
//!   (`pipeline`); a folder of weights beside a model's configuration: never read as labels;
//! * **hfdataset**: a folder saved by `datasets`' `save_to_disk` (`state.json`, or
//!   `dataset_dict.json` with a folder per split): one token-data item per split;
//! * **tokenbin**: flat token files, nanoGPT's `train.bin`/`val.bin` (with its `meta.pkl`) and
//!   Megatron/NeMo/GPT-NeoX indexed datasets (`PREFIX.bin` beside `PREFIX.idx`): their ids
//!   against the vocabulary;
//! * **torchvision**: the raw files of torchvision's MNIST-style (`train-labels-idx1-ubyte`)
//!   and CIFAR (`data_batch_1`, `cifar-100-python/train`) datasets, read as class labels;
//! * **coco**: COCO instances JSON (`annotations/instances_train2017.json` with its image
//!   folder, or a Roboflow export's `train/_annotations.coco.json`), one item per file;
//! * **yolo**: YOLO label files (`labels/**/*.txt` mirroring `images/`, classes from
//!   `data.yaml`);
//! * **paired**: a mask directory (`annotations`, `masks`, `labels`, `gt`, ...) beside an image
//!   directory (`images`, `imgs`, ...) with matching stems below them: ADE20K's
//!   `annotations/training` + `images/training`, or a plain `images/` + `masks/`;
//! * **webdataset**: WebDataset samples, files grouped by key as WebDataset groups them
//!   (`000123.jpg`, `000123.seg.png`, `000123.cls`): masks, class labels (`.cls`, `.json`) and
//!   label arrays checked per sample, extracted or in shards;
//! * **imagefolder**: torchvision's `root/[split/]class/image.jpg`, recognised when the tree
//!   holds photos in class folders, at any depth below them as torchvision walks them (JPEG
//!   files, or PNGs whose pixels are a photo's, not a mask's: `photos`), in class folders not
//!   named like masks, and nothing else matched;
//! * **files**: every mask, array and label table found, each on its own.
//!
//! Splits are named by the first path component that is a split name (`train`/`training`,
//! `val`/`valid`/`validation`, `test`/`testing`), or `all`.
//!
//! One file per layout (`cityscapes`, `voc`, `coco`, `yolo`, `model` with `pipeline`, `hf_dataset`,
//! `paired`, `webdataset`, `image_folder`, `token_bin`, `torchvision_raw`, `custom`, `files`), each
//! a `declare::Layout` (its name, aliases, help, what it claims, how it collects its items),
//! listed once in `list::LAYOUTS`; `discover` runs them over every scanned path, `datasets` splits a scanned folder into the
//! datasets it holds, `item` holds what discovery produces (items, tasks), `pairing` the
//! mask-to-image pairing the paired layouts share, `paths` the path helpers (splits,
//! extensions), `root` what a scan is given, `shards` the tar shards (WebDataset) that stand for their members, and the
//! brace patterns of shard names given as arguments.

mod camvid;
mod cityscapes;
mod class_colours;
mod coco;
mod custom;
mod datasets;
mod declare;
mod discover;
mod files;
mod hf_dataset;
mod image_folder;
pub mod item;
mod list;
pub(crate) mod model;
mod multiple_choice;
mod paired;
mod pairing;
pub mod paths;
mod photos;
mod pipeline;
mod root;
pub mod shards;
mod single_file;
mod token_bin;
mod torchvision_raw;
mod voc;
mod webdataset;
mod yolo;

pub use crate::layout_kind::LayoutKind;
pub use custom::expand_template;
pub use declare::DeclaredPalette;
pub use discover::{discover, discover_roots, DatasetInfo, Discovery};
pub use item::{Item, Part, Task};
pub use list::{layout_names, layouts_help};
pub use paths::split_of;
pub use root::{ListedRoot, Root};

#[cfg(test)]
mod tests;
