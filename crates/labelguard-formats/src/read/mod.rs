//! Readers: bytes in, pixels or labels out, with hard limits checked before anything large is
//! allocated. Every failure is a [`labelguard_core::Finding`] naming the rule (LG601
//! unreadable, LG602 corrupt, LG603 empty, LG604 bomb), built by that rule's file in
//! [`crate::checks`], never a panic.
//!
//! One file per job (the bytes come from [`crate::source`]): [`magic`] names a file by its
//! first bytes, [`mask`] decodes masks (with [`fastpng`] for plain 8-bit PNGs and
//! [`inflate_bound`] to check a header's claims against the compressed bytes), [`array`]
//! turns array read errors into findings, [`header`] reads image headers, [`table`] label
//! tables (with [`line_cap`], [`parquet_source`] and [`thrift_check`]), [`class_weights`] the
//! class-weight file, [`voc_xml`] Pascal VOC annotation XML, [`coco`] COCO instances JSON
//! (streamed), [`tokens`] tokenized datasets (with [`arrow_ipc`] for `datasets`' Arrow
//! files and `parquet_lists` for Parquet list columns, both handing the checks a
//! [`token_batch::TokenBatch`]).

pub mod array;
pub mod arrow_ipc;
pub mod arrow_json;
pub mod chat;
pub mod chat_rows;
pub mod chat_specials;
pub mod chat_template;
pub mod class_colours;
pub mod class_weights;
pub mod coco;
pub mod data_yaml;
pub mod fastpng;
pub mod header;
pub mod inflate_bound;
pub mod line_cap;
pub mod magic;
pub mod mask;
#[cfg(feature = "parquet")]
pub mod parquet_columns;
#[cfg(feature = "parquet")]
pub mod parquet_lists;
#[cfg(feature = "parquet")]
pub mod parquet_source;
pub mod pickle;
pub mod table;
pub mod tar;
pub mod thrift_check;
pub mod token_batch;
pub mod token_bin;
pub mod tokens;
pub mod torchvision_raw;
pub mod voc_xml;
pub mod yolo;
