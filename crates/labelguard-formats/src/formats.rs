//! The one table of file formats labelguard reads: name, extensions, magic bytes, what a file of
//! it holds and its [`Reader`], the typed kind of the reader that makes a file of it into work.
//! Discovery asks it what a file name can be and what a file named on its own is read as, the
//! readers name what a file's first bytes say, and the "nothing to scan" message lists it, so a
//! format is declared once, here.

/// What a file of a format can hold; a format may hold several (a PNG is a mask or an image).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// A per-pixel class map.
    Mask,
    /// A photo: paired with a mask, or an ImageFolder sample.
    Image,
    /// Tensors (`.npy`, `.npz`, `.safetensors`).
    Array,
    /// A label table, one row per sample.
    Table,
    /// Detection annotations.
    Detection,
    /// Tokenized text.
    Tokens,
    /// One sample's class id (a WebDataset `.cls` part, or a field of its `.json`).
    ClassLabel,
}

impl Holds {
    /// How the "nothing to scan" message names files that hold this (a format is listed under
    /// the first thing it holds).
    fn plural(self) -> &'static str {
        match self {
            Holds::Mask => "masks",
            Holds::Image => "images",
            Holds::Array => "arrays",
            Holds::Table => "label tables",
            Holds::Detection => "detection annotations",
            Holds::Tokens => "token datasets",
            Holds::ClassLabel => "class labels",
        }
    }
}

/// Which reader reads a format's files: the handler a format row carries. The scan turns each
/// kind into the work on one file (`labelguard_scan::layout::single_file` matches every kind,
/// so a new kind does not compile until the scan knows what a file of it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// An image: its header (`read::header`), and when named on its own, decoded as a mask
    /// (`read::mask`), whose first bytes decide what it is.
    Image,
    /// A mask or an image: `read::mask` (with `read::fastpng`), `read::header`.
    Mask,
    /// Tensors, read by `labelguard-io`.
    Array,
    /// A label table (`read::table`); JSON Lines and Parquet may also be token datasets
    /// (`read::tokens`, `read::parquet_lists`).
    Table(TableFormat),
    /// COCO instances JSON (`read::coco`), or a WebDataset sample's `.json`.
    CocoJson,
    /// YOLO label files (`read::yolo`).
    YoloTxt,
    /// Pascal VOC annotation XML (`read::voc_xml`).
    VocXml,
    /// A WebDataset sample's class label part (read by the scan's `analyze::sample_label`).
    SampleLabel,
    /// A `datasets` Arrow file of token ids (`read::arrow_ipc`).
    ArrowTokens,
    /// A flat token file, known by its name (`read::token_bin`).
    TokenBin,
    /// torchvision's raw MNIST and CIFAR files, known by their names (`read::torchvision_raw`).
    TorchvisionRaw,
}

/// The label table formats (`read::table`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    Csv,
    Tsv,
    Jsonl,
    Parquet,
}

impl TableFormat {
    /// The table format `name`'s extension names.
    pub fn of(name: &str) -> Option<TableFormat> {
        match by_extension(name)?.reader {
            Reader::Table(f) => Some(f),
            _ => None,
        }
    }
}

/// One file format.
#[derive(Debug)]
pub struct Format {
    pub name: &'static str,
    /// Lower case, without the dot.
    pub extensions: &'static [&'static str],
    /// Prefixes a file of the format starts with (empty for text formats).
    pub magic: &'static [&'static [u8]],
    pub holds: &'static [Holds],
    /// How messages list it (`.png`; `YOLO labels/*.txt`: where discovery looks for it).
    pub listed_as: &'static str,
    /// What reads it.
    pub reader: Reader,
}

use Holds::*;

/// Every format, in the order messages list them and pairing tries an image's extensions
/// (JPEG first: most photos are). Image extensions are torchvision's `IMG_EXTENSIONS`
/// (torchvision/datasets/folder.py).
pub const FORMATS: &[Format] = &[
    Format {
        name: "JPEG",
        extensions: &["jpg", "jpeg"],
        magic: &[b"\xFF\xD8\xFF"],
        holds: &[Image],
        listed_as: ".jpg",
        reader: Reader::Image,
    },
    Format {
        name: "PNG",
        extensions: &["png"],
        magic: &[b"\x89PNG\r\n\x1a\n"],
        holds: &[Mask, Image],
        listed_as: ".png",
        reader: Reader::Mask,
    },
    Format {
        name: "TIFF",
        extensions: &["tif", "tiff"],
        magic: &[b"II*\0", b"MM\0*"],
        holds: &[Mask, Image],
        listed_as: ".tif",
        reader: Reader::Mask,
    },
    Format {
        name: "Netpbm",
        extensions: &["ppm", "pgm"],
        magic: &[b"P5", b"P6"],
        holds: &[Image],
        listed_as: ".ppm",
        reader: Reader::Image,
    },
    Format {
        name: "BMP",
        extensions: &["bmp"],
        magic: &[b"BM"],
        holds: &[Image],
        listed_as: ".bmp",
        reader: Reader::Image,
    },
    Format {
        name: "WebP",
        extensions: &["webp"],
        // `RIFF` then `WEBP` at offset 8: not a prefix (`RIFF` alone is also WAV and AVI).
        magic: &[],
        holds: &[Image],
        listed_as: ".webp",
        reader: Reader::Image,
    },
    Format {
        name: "NumPy array",
        extensions: &["npy"],
        magic: &[b"\x93NUMPY"],
        holds: &[Array],
        listed_as: ".npy",
        reader: Reader::Array,
    },
    Format {
        name: "NumPy archive",
        extensions: &["npz"],
        magic: &[b"PK\x03\x04", b"PK\x05\x06"],
        holds: &[Array],
        listed_as: ".npz",
        reader: Reader::Array,
    },
    Format {
        name: "safetensors",
        extensions: &["safetensors"],
        magic: &[],
        holds: &[Array],
        listed_as: ".safetensors",
        reader: Reader::Array,
    },
    Format {
        name: "CSV",
        extensions: &["csv"],
        magic: &[],
        holds: &[Table],
        listed_as: ".csv",
        reader: Reader::Table(TableFormat::Csv),
    },
    Format {
        name: "TSV",
        extensions: &["tsv", "tab"],
        magic: &[],
        holds: &[Table],
        listed_as: ".tsv",
        reader: Reader::Table(TableFormat::Tsv),
    },
    Format {
        name: "JSON Lines",
        extensions: &["jsonl", "ndjson"],
        magic: &[],
        holds: &[Table, Tokens],
        listed_as: ".jsonl",
        reader: Reader::Table(TableFormat::Jsonl),
    },
    Format {
        name: "Parquet",
        extensions: &["parquet", "pq"],
        magic: &[b"PAR1"],
        holds: &[Table, Tokens],
        listed_as: ".parquet",
        reader: Reader::Table(TableFormat::Parquet),
    },
    Format {
        name: "COCO JSON",
        extensions: &["json"],
        magic: &[],
        // A WebDataset sample's `.json` holds its class in a label field.
        holds: &[Detection, ClassLabel],
        listed_as: "COCO .json",
        reader: Reader::CocoJson,
    },
    Format {
        name: "YOLO labels",
        extensions: &["txt"],
        magic: &[],
        holds: &[Detection],
        listed_as: "YOLO labels/*.txt",
        reader: Reader::YoloTxt,
    },
    Format {
        name: "Pascal VOC XML",
        extensions: &["xml"],
        magic: &[],
        holds: &[Detection],
        listed_as: "VOC Annotations/*.xml",
        reader: Reader::VocXml,
    },
    Format {
        // The parts WebDataset's `basichandlers` decodes with `int(data)` (`cls`, `cls2`,
        // `index`, `inx`; webdataset/autodecode.py), and `class`, `label` by the same convention.
        name: "WebDataset class label",
        extensions: &["cls", "cls2", "index", "inx", "class", "label"],
        magic: &[],
        holds: &[ClassLabel],
        listed_as: "WebDataset .cls",
        reader: Reader::SampleLabel,
    },
    Format {
        name: "Arrow IPC (datasets)",
        extensions: &["arrow"],
        magic: &[b"\xFF\xFF\xFF\xFF", b"ARROW1"],
        holds: &[Tokens],
        listed_as: ".arrow",
        reader: Reader::ArrowTokens,
    },
    Format {
        // Named files without a header (`np.uint16` ids): the layout knows them by name.
        name: "nanoGPT token file",
        extensions: &[],
        magic: &[],
        holds: &[Tokens],
        listed_as: "nanoGPT train.bin/val.bin",
        reader: Reader::TokenBin,
    },
    Format {
        // The magic starts the `.idx`; its `.bin` has none.
        name: "Megatron indexed dataset",
        extensions: &[],
        magic: &[b"MMIDIDX\x00\x00"],
        holds: &[Tokens],
        listed_as: "Megatron .bin + .idx",
        reader: Reader::TokenBin,
    },
    Format {
        // torchvision's raw MNIST-style files: uint8 labels (0x801) and images (0x803).
        name: "MNIST IDX",
        extensions: &[],
        magic: &[b"\x00\x00\x08\x01", b"\x00\x00\x08\x03"],
        holds: &[ClassLabel],
        listed_as: "MNIST *-labels-idx1-ubyte",
        reader: Reader::TorchvisionRaw,
    },
    Format {
        name: "CIFAR python batch",
        extensions: &[],
        magic: &[],
        holds: &[ClassLabel],
        listed_as: "CIFAR data_batch_*",
        reader: Reader::TorchvisionRaw,
    },
];

/// The extension of `name` (after its last dot), when it has one.
fn extension(name: &str) -> Option<&str> {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.rsplit_once('.').map(|(_, e)| e)
}

/// The format `name`'s extension names, ignoring case.
pub fn by_extension(name: &str) -> Option<&'static Format> {
    let ext = extension(name)?;
    FORMATS
        .iter()
        .find(|f| f.extensions.iter().any(|x| ext.eq_ignore_ascii_case(x)))
}

/// Whether `name`'s extension is one of a format that holds `what` (no allocation: it runs on
/// every file of a tree).
pub fn holds(name: &str, what: Holds) -> bool {
    extension(name).is_some_and(|ext| {
        FORMATS.iter().any(|f| {
            f.holds.contains(&what) && f.extensions.iter().any(|x| ext.eq_ignore_ascii_case(x))
        })
    })
}

/// The extensions of the formats that hold `what`.
pub fn extensions(what: Holds) -> impl Iterator<Item = &'static str> {
    FORMATS
        .iter()
        .filter(move |f| f.holds.contains(&what))
        .flat_map(|f| f.extensions.iter().copied())
}

/// The format `bytes` start like, when one does.
pub fn by_magic(bytes: &[u8]) -> Option<&'static Format> {
    FORMATS
        .iter()
        .find(|f| f.magic.iter().any(|m| bytes.starts_with(m)))
}

/// What a scan reads, for the message of a scan that found nothing: `masks (.png, .tif),
/// arrays (...), ...`.
pub fn summary() -> String {
    [Mask, Array, Table, Detection, Tokens, ClassLabel]
        .iter()
        .map(|&h| {
            let listed: Vec<&str> = FORMATS
                .iter()
                .filter(|f| f.holds.first() == Some(&h))
                .map(|f| f.listed_as)
                .collect();
            format!("{} ({})", h.plural(), listed.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extension_and_magic_names_one_format() {
        let mut seen = std::collections::HashSet::new();
        for f in FORMATS {
            for e in f.extensions {
                assert_eq!(*e, e.to_ascii_lowercase(), "{}", f.name);
                assert!(seen.insert(*e), "{e} declared twice");
            }
            for m in f.magic {
                assert_eq!(by_magic(m).map(|g| g.name), Some(f.name));
            }
        }
    }

    #[test]
    fn names_are_matched_by_their_last_extension_ignoring_case() {
        assert!(holds("a/b/x.PNG", Mask));
        assert!(holds("x.png", Image));
        assert!(!holds("x.jpg", Mask));
        assert!(!holds("png", Mask), "a name without a dot has no extension");
        assert!(
            !holds("dir.png/x", Mask),
            "the folder's extension is not the file's"
        );
        assert_eq!(by_extension("t.TSV").map(|f| f.name), Some("TSV"));
        assert_eq!(TableFormat::of("t.PQ"), Some(TableFormat::Parquet));
        assert_eq!(TableFormat::of("t.json"), None);
        assert_eq!(
            by_magic(b"\x93NUMPY\x01\x00").map(|f| f.name),
            Some("NumPy array")
        );
        assert!(summary().starts_with("masks (.png, .tif), arrays (.npy, .npz, .safetensors)"));
    }
}
