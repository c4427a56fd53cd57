//! Detection annotations: COCO instances JSON, YOLO label files and Pascal VOC XML, each read
//! into the same facts (the classes a file declares, its objects' classes and boxes) and
//! judged by the same rules (LG701-LG712, one check file each in [`crate::checks`]).
//!
//! A detection head does not read the dataset's class ids as they are stored: torchvision's
//! heads take them as they come and count background as class 0, mmdet and detectron2 map the
//! declared categories to `0..K-1`, ultralytics takes YOLO's ids as they are. [`crate::framework`] holds
//! those conventions, so that every format's objects are counted in the ids the model sees and
//! the class count each framework needs is said in its own terms.
//!
//! One file per format: [`coco`], [`yolo`] and [`voc_xml`] analyse one annotation file each
//! (their parsers are in `labelguard_formats::read`); the layouts that find them are
//! `crate::layout::{coco, yolo, voc}`. [`overlay`] draws a file's boxes on its image for the
//! HTML report.

pub mod coco;
pub mod head;
pub mod overlay;
pub mod voc_xml;
pub mod yolo;
