//! The checks of the dataset rules (LG6xx) that need the scan's inputs: one file per rule,
//! named like the rule's documentation in `labelguard_core::rules`, opening with the rule it
//! implements and holding the function that decides and builds its finding. The analysis
//! ([`crate::analyze`]), the walker and the layouts call them; a check never calls back.
//! LG602 (corrupt file) and LG604 (decompression bomb) are found by the readers
//! ([`crate::read`]) where the bytes are, LG609-LG611 (over the whole dataset) when the report is finalised.

pub mod lg601_unreadable_file;
pub mod lg603_empty_file;
pub mod lg605_resize_artefacts;
pub mod lg606_colour_mask;
pub mod lg607_mask_image_size_mismatch;
pub mod lg608_missing_pair;
pub mod lg609_class_never_seen;
pub mod lg610_class_in_one_split;
pub mod lg611_class_imbalance;
pub mod lg612_unknown_label;
pub mod lg613_label_column_missing;
pub mod lg614_non_utf8_path;
pub mod lg615_binary_255_masks;
pub mod lg620_internal_error;
