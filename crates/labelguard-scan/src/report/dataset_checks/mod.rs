//! The checks of the dataset rules decided over the whole dataset, on the report's raw parts
//! when it is finalised ([`super::finalize`]): one file per rule, named like the rule's
//! documentation in `labelguard_core::rules`, opening with the rule it implements. The checks
//! about one file or path are in [`crate::checks`].

pub mod class_id_conventions;
pub mod lg609_class_never_seen;
pub mod lg610_class_in_one_split;
pub mod lg611_class_imbalance;
pub mod lg615_binary_255_masks;
pub mod lg704_head_class_count_mismatch;
pub mod lg710_mixed_boxes_and_polygons;
pub mod lg712_difficult_objects;
