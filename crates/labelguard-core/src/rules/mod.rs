//! The rule catalogue: one file per rule, its documentation in its doc comment.
//!
//! The list below is the only place a rule is named: each line declares the rule's module,
//! puts its `RULE` into [`ALL`] (in code order) and gives it its short name (`rules::LG101`).

use crate::rule::{Category, Rule};

/// Declares every rule's module, [`ALL`] and the short names, from one line per rule.
macro_rules! catalogue {
    ($($module:ident as $code:ident,)*) => {
        $(pub mod $module;)*

        /// Every rule, in code order.
        pub const ALL: &[Rule] = &[$($module::RULE),*];

        $(pub use $module::RULE as $code;)*

        /// Each short name is its rule's code, and the catalogue is in code order.
        #[test]
        fn short_names_are_codes_in_order() {
            $(assert_eq!($code.code, stringify!($code));)*
            assert!(ALL.windows(2).all(|w| w[0].code < w[1].code));
        }
    };
}

catalogue! {
    lg101_class_id_out_of_range as LG101,
    lg102_negative_class_id as LG102,
    lg103_void_label_not_ignored as LG103,
    lg104_one_based_labels as LG104,
    lg105_cityscapes_label_ids as LG105,
    lg106_zero_means_ignore as LG106,
    lg107_padding_value_not_ignored as LG107,
    lg108_nan_loss as LG108,
    lg201_float_class_target as LG201,
    lg202_one_hot_target as LG202,
    lg203_extra_target_dim as LG203,
    lg204_shape_mismatch as LG204,
    lg205_index_dtype as LG205,
    lg206_input_dtype as LG206,
    lg207_dim_out_of_range as LG207,
    lg208_invalid_argument as LG208,
    lg209_dtype_mismatch as LG209,
    lg210_unsupported_rank as LG210,
    lg211_mask_shape_mismatch as LG211,
    lg212_index_broadcast_mismatch as LG212,
    lg213_value_shape_mismatch as LG213,
    lg214_too_many_indices as LG214,
    lg301_class_weight_length as LG301,
    lg302_weight_values as LG302,
    lg303_weight_not_broadcastable as LG303,
    lg401_embedding_index_out_of_range as LG401,
    lg402_index_out_of_bounds as LG402,
    lg403_one_hot_class_out_of_range as LG403,
    lg404_bincount_negative as LG404,
    lg405_ctc_target_out_of_range as LG405,
    lg406_ctc_target_is_blank as LG406,
    lg407_ctc_invalid_lengths as LG407,
    lg408_ctc_infeasible_alignment as LG408,
    lg409_advanced_index_out_of_bounds as LG409,
    lg410_flat_index_out_of_range as LG410,
    lg411_index_op_out_of_bounds as LG411,
    lg412_embedding_bag_index_out_of_range as LG412,
    lg413_embedding_bag_offsets as LG413,
    lg414_token_type_id_out_of_range as LG414,
    lg415_sequence_longer_than_positions as LG415,
    lg416_label_index_equals_classes as LG416,
    lg417_label_set_gap as LG417,
    lg418_background_not_counted as LG418,
    lg419_masked_scatter_count as LG419,
    lg420_raw_class_ids as LG420,
    lg421_unseen_category_id as LG421,
    lg422_kl_div_target_not_distribution as LG422,
    lg423_kl_div_input_not_log_probabilities as LG423,
    lg501_bce_input_out_of_range as LG501,
    lg502_bce_target_out_of_range as LG502,
    lg503_logits_target_out_of_range as LG503,
    lg504_soft_target_not_distribution as LG504,
    lg505_multinomial_invalid_probabilities as LG505,
    lg506_multinomial_zero_row as LG506,
    lg507_multinomial_too_few_categories as LG507,
    lg508_non_finite_values as LG508,
    lg601_unreadable_file as LG601,
    lg602_corrupt_file as LG602,
    lg603_empty_file as LG603,
    lg604_decompression_bomb as LG604,
    lg605_resize_artefacts as LG605,
    lg606_colour_mask as LG606,
    lg607_mask_image_size_mismatch as LG607,
    lg608_missing_pair as LG608,
    lg609_class_never_seen as LG609,
    lg610_class_in_one_split as LG610,
    lg611_class_imbalance as LG611,
    lg612_unknown_label as LG612,
    lg613_label_column_missing as LG613,
    lg614_non_utf8_path as LG614,
    lg615_binary_255_masks as LG615,
    lg616_incomplete_sample as LG616,
    lg617_corrupt_tar_shard as LG617,
    lg618_unreadable_object as LG618,
    lg620_internal_error as LG620,
    lg621_colour_not_in_class_colours as LG621,
    lg622_malformed_class_colours as LG622,
    lg701_detection_class_out_of_range as LG701,
    lg702_unknown_category as LG702,
    lg703_non_contiguous_category_ids as LG703,
    lg704_head_class_count_mismatch as LG704,
    lg705_invalid_box as LG705,
    lg706_box_outside_image as LG706,
    lg707_annotation_without_image as LG707,
    lg708_annotation_size_mismatch as LG708,
    lg709_malformed_annotation as LG709,
    lg710_mixed_boxes_and_polygons as LG710,
    lg711_duplicate_annotation as LG711,
    lg712_difficult_objects as LG712,
    lg801_token_id_out_of_range as LG801,
    lg802_token_label_out_of_range as LG802,
    lg803_label_padding_not_ignored as LG803,
    lg804_all_labels_ignored as LG804,
    lg805_sequence_beyond_positions as LG805,
    lg806_token_type_out_of_range as LG806,
    lg807_attention_mask_invalid as LG807,
    lg808_image_placeholder_mismatch as LG808,
    lg809_tokenizer_larger_than_embeddings as LG809,
    lg810_special_token_beyond_embeddings as LG810,
    lg811_no_pad_token as LG811,
    lg812_head_size_mismatch as LG812,
    lg813_model_description_incomplete as LG813,
    lg814_tokenizer_longer_than_positions as LG814,
    lg815_chat_not_checked as LG815,
    lg816_chat_template_refused as LG816,
    lg817_token_ids_unchecked as LG817,
    lg820_chat_marker_split as LG820,
    lg901_unidentified_device_assert as LG901,
    lg902_asynchronous_report as LG902,
    lg903_unexplained_error as LG903,
    lg904_secondary_cuda_error as LG904,
    lg905_kernel_index_overflow as LG905,
    lg906_bernoulli_probability_out_of_range as LG906,
    lg907_embedding_bag_offsets as LG907,
    lg908_assert_async_failed as LG908,
    lg909_peer_rank_failure as LG909,
}

/// The rule with this code (case-insensitive), if any.
pub fn by_code(code: &str) -> Option<&'static Rule> {
    ALL.iter()
        .find(|r| r.code.eq_ignore_ascii_case(code) || r.name == code)
}

/// The category of the rule with this code: what reports ask instead of keeping lists of codes
/// (`Plain` for a code the catalogue does not hold).
pub fn category_of(code: &str) -> Category {
    by_code(code).map_or(Category::Plain, |r| r.category)
}
