//! The layout names a dataset can have (`--layout`, a config's `layout =`): a leaf that both
//! the configuration and the layout detectors import, so neither imports the other for it.

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LayoutKind {
    Auto,
    Cityscapes,
    Voc,
    Paired,
    ImageFolder,
    Files,
    Custom,
    /// COCO instances JSON (`annotations/instances_*.json`).
    Coco,
    /// YOLO labels (`labels/**/*.txt` beside `images/`, `data.yaml`).
    Yolo,
    /// A Hugging Face model directory (`config.json` beside tokenizer files or weights): the
    /// tokenizer checked against the model.
    Model,
    /// A `datasets` folder saved with `save_to_disk` (token data).
    HfDataset,
    /// WebDataset samples: files grouped by key (`000123.jpg`, `000123.seg.png`, `000123.cls`).
    WebDataset,
    /// Flat token files: nanoGPT's `train.bin`/`val.bin`, Megatron's `.bin` + `.idx`.
    TokenBin,
    /// The raw files of torchvision's classification datasets (MNIST's IDX files, CIFAR
    /// batches).
    Torchvision,
}

impl LayoutKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LayoutKind::Auto => "auto",
            LayoutKind::Cityscapes => "cityscapes",
            LayoutKind::Voc => "voc",
            LayoutKind::Paired => "paired",
            LayoutKind::ImageFolder => "imagefolder",
            LayoutKind::Files => "files",
            LayoutKind::Custom => "custom",
            LayoutKind::Coco => "coco",
            LayoutKind::Yolo => "yolo",
            LayoutKind::Model => "model",
            LayoutKind::HfDataset => "hfdataset",
            LayoutKind::WebDataset => "webdataset",
            LayoutKind::TokenBin => "tokenbin",
            LayoutKind::Torchvision => "torchvision",
        }
    }
}

impl std::str::FromStr for LayoutKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "auto" => LayoutKind::Auto,
            "cityscapes" => LayoutKind::Cityscapes,
            "voc" | "pascalvoc" => LayoutKind::Voc,
            "paired" | "ade20k" | "imagesmasks" => LayoutKind::Paired,
            "imagefolder" => LayoutKind::ImageFolder,
            "files" => LayoutKind::Files,
            "custom" => LayoutKind::Custom,
            "coco" => LayoutKind::Coco,
            "yolo" | "ultralytics" => LayoutKind::Yolo,
            "model" | "huggingface" | "transformers" => LayoutKind::Model,
            "hfdataset" | "hf" | "datasets" | "arrow" => LayoutKind::HfDataset,
            "webdataset" | "wds" => LayoutKind::WebDataset,
            "tokenbin" | "nanogpt" | "megatron" => LayoutKind::TokenBin,
            "torchvision" | "mnist" | "cifar" => LayoutKind::Torchvision,
            _ => {
                return Err(format!(
                    "unknown layout '{s}' (known: auto, cityscapes, voc, paired, imagefolder, coco, yolo, model, hfdataset, webdataset, tokenbin, torchvision, files, custom)"
                ))
            }
        })
    }
}
