//! One file named on the command line (`labelguard scan instances.json`) is read as what its
//! format row says it is: the row's [`Reader`] (from `labelguard_formats::formats`) becomes
//! the file's task and the layout its report names. Every kind is matched here, so a format
//! with a new kind of reader does not compile until this says what a file of it is.

use super::coco::{images_beside, is_coco_json};
use super::item::Task;
use super::{coco, files, hf_dataset, voc, yolo};
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
            files::KIND,
        )
    };
    let Some(format) = by_extension(&path.to_string_lossy()) else {
        // No format has its extension: decoded as a mask, whose first bytes say what it is.
        return decoded();
    };
    match format.reader {
        Reader::Table(f) => (Task::Table(f), files::KIND),
        Reader::Array => (Task::Array, files::KIND),
        Reader::CocoJson if is_coco_json(&Source::File(path.to_path_buf())) => (
            Task::Coco {
                images: images_beside(path),
            },
            coco::KIND,
        ),
        // JSON Lines records in a `.json` file, as `datasets.load_dataset("json")` reads them.
        Reader::CocoJson if is_json_lines(&Source::File(path.to_path_buf())) => {
            (Task::Table(TableFormat::Jsonl), files::KIND)
        }
        // One Arrow shard of a `datasets` folder.
        Reader::ArrowTokens => (
            Task::Tokens {
                files: vec![path.to_path_buf()],
                format: TokenFormat::Arrow,
            },
            hf_dataset::KIND,
        ),
        Reader::VocXml => (
            Task::VocXml {
                image: None,
                missing_image: None,
            },
            voc::KIND,
        ),
        Reader::YoloTxt => (
            Task::Yolo {
                image: None,
                missing_image: None,
            },
            yolo::KIND,
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
            ("labels.CSV", &b"label\n1\n"[..], "Table", files::KIND),
            ("labels.pq", b"", "Table", files::KIND),
            ("mask.npy", b"", "Array", files::KIND),
            ("instances.json", coco, "Coco", coco::KIND),
            ("other.json", b"{\"label\": 3}", "Mask", files::KIND),
            (
                "train.json",
                b"{\"label\": 3}\n{\"label\": 1}\n",
                "Table",
                files::KIND,
            ),
            (
                "config.json",
                b"{\n  \"label\": 3\n}\n",
                "Mask",
                files::KIND,
            ),
            ("data-00000-of-00001.arrow", b"", "Tokens", hf_dataset::KIND),
            ("0001.xml", b"<annotation/>", "VocXml", voc::KIND),
            ("0001.txt", b"0 0.5 0.5 0.1 0.1\n", "Yolo", yolo::KIND),
            ("mask.png", b"", "Mask", files::KIND),
            ("photo.jpg", b"", "Mask", files::KIND),
            ("000123.cls", b"3", "Mask", files::KIND),
            ("unknown.bin", b"", "Mask", files::KIND),
            ("no_extension", b"", "Mask", files::KIND),
        ] {
            assert_eq!(of(name, bytes), (task.to_string(), layout), "{name}");
        }
    }
}
