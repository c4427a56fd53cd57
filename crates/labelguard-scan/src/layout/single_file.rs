//! One file named on the command line (`labelguard scan instances.json`) is read as what its
//! format row says it is: the row's [`Reader`] (from `labelguard_formats::formats`) becomes
//! the file's task and the layout its report names. Every kind is matched here, so a format
//! with a new kind of reader does not compile until this says what a file of it is.

use super::coco::{images_beside, is_coco_json};
use super::item::Task;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{by_extension, Reader, TableFormat};
use labelguard_formats::read::table::is_json_lines;
use labelguard_formats::read::tokens::TokenFormat;
use labelguard_formats::source::Source;
use std::path::Path;

/// The task of the file `path` scanned on its own, and the layout its report names.
pub(crate) fn single_file(path: &Path) -> (Task, LayoutKind) {
    let decoded = || {
        (
            Task::Mask {
                image: None,
                missing_image: None,
            },
            LayoutKind::Files,
        )
    };
    let Some(format) = by_extension(&path.to_string_lossy()) else {
        // No format has its extension: decoded as a mask, whose first bytes say what it is.
        return decoded();
    };
    match format.reader {
        Reader::Table(f) => (Task::Table(f), LayoutKind::Files),
        Reader::Array => (Task::Array, LayoutKind::Files),
        Reader::CocoJson if is_coco_json(&Source::File(path.to_path_buf())) => (
            Task::Coco {
                images: images_beside(path),
            },
            LayoutKind::Coco,
        ),
        // JSON Lines records in a `.json` file, as `datasets.load_dataset("json")` reads them.
        Reader::CocoJson if is_json_lines(&Source::File(path.to_path_buf())) => {
            (Task::Table(TableFormat::Jsonl), LayoutKind::Files)
        }
        // One Arrow shard of a `datasets` folder.
        Reader::ArrowTokens => (
            Task::Tokens {
                files: vec![path.to_path_buf()],
                format: TokenFormat::Arrow,
            },
            LayoutKind::HfDataset,
        ),
        Reader::VocXml => (
            Task::VocXml {
                image: None,
                missing_image: None,
            },
            LayoutKind::Voc,
        ),
        Reader::YoloTxt => (
            Task::Yolo {
                image: None,
                missing_image: None,
            },
            LayoutKind::Yolo,
        ),
        // A photo or a mask is decoded as a mask; a `.json` that is not COCO, and the parts
        // that only mean something beside the files of their sample or dataset (a
        // WebDataset `.cls`, a named token or torchvision file), are decoded the same way,
        // whose first bytes say what they are.
        Reader::Image
        | Reader::Mask
        | Reader::CocoJson
        | Reader::SampleLabel
        | Reader::TokenBin
        | Reader::TorchvisionRaw => decoded(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `single_file` makes of a file named `name` holding `bytes`.
    fn of(name: &str, bytes: &[u8]) -> (String, LayoutKind) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (task, layout) = single_file(&path);
        let task = format!("{task:?}");
        (
            task[..task.find([' ', '(']).unwrap_or(task.len())].to_string(),
            layout,
        )
    }

    #[test]
    fn a_file_named_alone_is_read_as_its_format_row_says() {
        let coco = br#"{"images": [], "annotations": [], "categories": []}"#;
        for (name, bytes, task, layout) in [
            ("labels.CSV", &b"label\n1\n"[..], "Table", LayoutKind::Files),
            ("labels.pq", b"", "Table", LayoutKind::Files),
            ("mask.npy", b"", "Array", LayoutKind::Files),
            ("instances.json", coco, "Coco", LayoutKind::Coco),
            ("other.json", b"{\"label\": 3}", "Mask", LayoutKind::Files),
            (
                "train.json",
                b"{\"label\": 3}\n{\"label\": 1}\n",
                "Table",
                LayoutKind::Files,
            ),
            (
                "config.json",
                b"{\n  \"label\": 3\n}\n",
                "Mask",
                LayoutKind::Files,
            ),
            (
                "data-00000-of-00001.arrow",
                b"",
                "Tokens",
                LayoutKind::HfDataset,
            ),
            ("0001.xml", b"<annotation/>", "VocXml", LayoutKind::Voc),
            ("0001.txt", b"0 0.5 0.5 0.1 0.1\n", "Yolo", LayoutKind::Yolo),
            ("mask.png", b"", "Mask", LayoutKind::Files),
            ("photo.jpg", b"", "Mask", LayoutKind::Files),
            ("000123.cls", b"3", "Mask", LayoutKind::Files),
            ("unknown.bin", b"", "Mask", LayoutKind::Files),
            ("no_extension", b"", "Mask", LayoutKind::Files),
        ] {
            assert_eq!(of(name, bytes), (task.to_string(), layout), "{name}");
        }
    }
}
