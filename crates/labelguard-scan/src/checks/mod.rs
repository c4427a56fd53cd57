//! The checks of the dataset rules (LG6xx, the detection annotations' LG7xx, and LG101 for ImageFolder's class folders) about one
//! file, path or folder: one file per rule, named
//! like the rule's documentation in `labelguard_core::rules`, opening with the rule it
//! implements and holding the functions that decide and build its findings. The walker, the
//! readers, the layouts and the analysis ([`crate::analyze`]) call them with plain data
//! (sizes, counts, cells, a decoder's message); a check calls no reader, layout or analysis.
//! The rules decided over the whole dataset (LG609-LG611, LG615) are checked when the report is
//! finalised, in [`crate::report::dataset_checks`].

pub mod data_yaml;
pub mod lg101_class_id_out_of_range;
// The rules of a file that cannot be read at all (LG601-LG604) are checked where the bytes
// are read, in `labelguard_formats`; they are named here too, so that every rule of a file
// is found under `checks`.
pub use labelguard_formats::checks::{
    lg601_unreadable_file, lg602_corrupt_file, lg603_empty_file, lg604_decompression_bomb,
};
pub mod lg605_resize_artefacts;
pub mod lg606_colour_mask;
pub mod lg607_mask_image_size_mismatch;
pub mod lg608_missing_pair;
pub mod lg610_class_in_one_split;
pub mod lg612_unknown_label;
pub mod lg613_label_column_missing;
pub mod lg614_non_utf8_path;
pub mod lg616_incomplete_sample;
pub mod lg617_corrupt_tar_shard;
pub mod lg618_unreadable_object;
pub mod lg620_internal_error;
pub mod lg621_colour_not_in_class_colours;
pub mod lg622_malformed_class_colours;
pub mod lg701_detection_class_out_of_range;
pub mod lg702_unknown_category;
pub mod lg703_non_contiguous_category_ids;
pub mod lg704_head_class_count_mismatch;
pub mod lg705_invalid_box;
pub mod lg706_box_outside_image;
pub mod lg707_annotation_without_image;
pub mod lg708_annotation_size_mismatch;
pub mod lg709_malformed_annotation;
pub mod lg710_mixed_boxes_and_polygons;
pub mod lg711_duplicate_annotation;
pub mod lg712_difficult_objects;
pub mod lg801_token_id_out_of_range;
pub mod lg802_token_label_out_of_range;
pub mod lg803_label_padding_not_ignored;
pub mod lg804_all_labels_ignored;
pub mod lg805_sequence_beyond_positions;
pub mod lg806_token_type_out_of_range;
pub mod lg807_attention_mask_invalid;
pub mod lg808_image_placeholder_mismatch;
pub mod lg815_chat_not_checked;
pub mod lg816_chat_template_refused;
pub mod lg817_token_ids_unchecked;
pub mod lg820_chat_marker_split;
pub mod token_rows;
pub mod token_stream;
