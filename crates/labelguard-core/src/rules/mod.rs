//! The rule catalogue: one file per rule, its documentation in its doc comment.

pub mod lg101_class_id_out_of_range;
pub mod lg102_negative_class_id;
pub mod lg103_void_label_not_ignored;
pub mod lg104_one_based_labels;
pub mod lg105_cityscapes_label_ids;
pub mod lg106_zero_means_ignore;
pub mod lg107_padding_value_not_ignored;
pub mod lg108_nan_loss;
pub mod lg201_float_class_target;
pub mod lg202_one_hot_target;
pub mod lg203_extra_target_dim;
pub mod lg204_shape_mismatch;
pub mod lg205_index_dtype;
pub mod lg206_input_dtype;
pub mod lg207_dim_out_of_range;
pub mod lg208_invalid_argument;
pub mod lg209_dtype_mismatch;
pub mod lg210_unsupported_rank;
pub mod lg211_mask_shape_mismatch;
pub mod lg212_index_broadcast_mismatch;
pub mod lg213_value_shape_mismatch;
pub mod lg214_too_many_indices;
pub mod lg301_class_weight_length;
pub mod lg302_weight_values;
pub mod lg303_weight_not_broadcastable;
pub mod lg401_embedding_index_out_of_range;
pub mod lg402_index_out_of_bounds;
pub mod lg403_one_hot_class_out_of_range;
pub mod lg404_bincount_negative;
pub mod lg405_ctc_target_out_of_range;
pub mod lg406_ctc_target_is_blank;
pub mod lg407_ctc_invalid_lengths;
pub mod lg408_ctc_infeasible_alignment;
pub mod lg409_advanced_index_out_of_bounds;
pub mod lg410_flat_index_out_of_range;
pub mod lg411_index_op_out_of_bounds;
pub mod lg412_embedding_bag_index_out_of_range;
pub mod lg413_embedding_bag_offsets;
pub mod lg414_token_type_id_out_of_range;
pub mod lg415_sequence_longer_than_positions;
pub mod lg416_label_index_equals_classes;
pub mod lg417_label_set_gap;
pub mod lg418_background_not_counted;
pub mod lg501_bce_input_out_of_range;
pub mod lg502_bce_target_out_of_range;
pub mod lg503_logits_target_out_of_range;
pub mod lg504_soft_target_not_distribution;
pub mod lg505_multinomial_invalid_probabilities;
pub mod lg506_multinomial_zero_row;
pub mod lg507_multinomial_too_few_categories;
pub mod lg508_non_finite_values;
pub mod lg601_unreadable_file;
pub mod lg602_corrupt_file;
pub mod lg603_empty_file;
pub mod lg604_decompression_bomb;
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
pub mod lg901_unidentified_device_assert;
pub mod lg902_asynchronous_report;
pub mod lg903_unexplained_error;
pub mod lg904_secondary_cuda_error;
pub mod lg905_kernel_index_overflow;
pub mod lg906_bernoulli_probability_out_of_range;
pub mod lg907_embedding_bag_offsets;
pub mod lg908_assert_async_failed;

use crate::rule::Rule;

/// Every rule, in code order.
pub const ALL: &[Rule] = &[
    lg101_class_id_out_of_range::RULE,
    lg102_negative_class_id::RULE,
    lg103_void_label_not_ignored::RULE,
    lg104_one_based_labels::RULE,
    lg105_cityscapes_label_ids::RULE,
    lg106_zero_means_ignore::RULE,
    lg107_padding_value_not_ignored::RULE,
    lg108_nan_loss::RULE,
    lg201_float_class_target::RULE,
    lg202_one_hot_target::RULE,
    lg203_extra_target_dim::RULE,
    lg204_shape_mismatch::RULE,
    lg205_index_dtype::RULE,
    lg206_input_dtype::RULE,
    lg207_dim_out_of_range::RULE,
    lg208_invalid_argument::RULE,
    lg209_dtype_mismatch::RULE,
    lg210_unsupported_rank::RULE,
    lg211_mask_shape_mismatch::RULE,
    lg212_index_broadcast_mismatch::RULE,
    lg213_value_shape_mismatch::RULE,
    lg214_too_many_indices::RULE,
    lg301_class_weight_length::RULE,
    lg302_weight_values::RULE,
    lg303_weight_not_broadcastable::RULE,
    lg401_embedding_index_out_of_range::RULE,
    lg402_index_out_of_bounds::RULE,
    lg403_one_hot_class_out_of_range::RULE,
    lg404_bincount_negative::RULE,
    lg405_ctc_target_out_of_range::RULE,
    lg406_ctc_target_is_blank::RULE,
    lg407_ctc_invalid_lengths::RULE,
    lg408_ctc_infeasible_alignment::RULE,
    lg409_advanced_index_out_of_bounds::RULE,
    lg410_flat_index_out_of_range::RULE,
    lg411_index_op_out_of_bounds::RULE,
    lg412_embedding_bag_index_out_of_range::RULE,
    lg413_embedding_bag_offsets::RULE,
    lg414_token_type_id_out_of_range::RULE,
    lg415_sequence_longer_than_positions::RULE,
    lg416_label_index_equals_classes::RULE,
    lg417_label_set_gap::RULE,
    lg418_background_not_counted::RULE,
    lg501_bce_input_out_of_range::RULE,
    lg502_bce_target_out_of_range::RULE,
    lg503_logits_target_out_of_range::RULE,
    lg504_soft_target_not_distribution::RULE,
    lg505_multinomial_invalid_probabilities::RULE,
    lg506_multinomial_zero_row::RULE,
    lg507_multinomial_too_few_categories::RULE,
    lg508_non_finite_values::RULE,
    lg601_unreadable_file::RULE,
    lg602_corrupt_file::RULE,
    lg603_empty_file::RULE,
    lg604_decompression_bomb::RULE,
    lg605_resize_artefacts::RULE,
    lg606_colour_mask::RULE,
    lg607_mask_image_size_mismatch::RULE,
    lg608_missing_pair::RULE,
    lg609_class_never_seen::RULE,
    lg610_class_in_one_split::RULE,
    lg611_class_imbalance::RULE,
    lg612_unknown_label::RULE,
    lg613_label_column_missing::RULE,
    lg614_non_utf8_path::RULE,
    lg615_binary_255_masks::RULE,
    lg901_unidentified_device_assert::RULE,
    lg902_asynchronous_report::RULE,
    lg903_unexplained_error::RULE,
    lg904_secondary_cuda_error::RULE,
    lg905_kernel_index_overflow::RULE,
    lg906_bernoulli_probability_out_of_range::RULE,
    lg907_embedding_bag_offsets::RULE,
    lg908_assert_async_failed::RULE,
];

/// The rule with this code (case-insensitive), if any.
pub fn by_code(code: &str) -> Option<&'static Rule> {
    ALL.iter()
        .find(|r| r.code.eq_ignore_ascii_case(code) || r.name == code)
}

// Short names for the op contracts.
pub use lg101_class_id_out_of_range::RULE as LG101;
pub use lg102_negative_class_id::RULE as LG102;
pub use lg103_void_label_not_ignored::RULE as LG103;
pub use lg104_one_based_labels::RULE as LG104;
pub use lg105_cityscapes_label_ids::RULE as LG105;
pub use lg106_zero_means_ignore::RULE as LG106;
pub use lg107_padding_value_not_ignored::RULE as LG107;
pub use lg108_nan_loss::RULE as LG108;
pub use lg201_float_class_target::RULE as LG201;
pub use lg202_one_hot_target::RULE as LG202;
pub use lg203_extra_target_dim::RULE as LG203;
pub use lg204_shape_mismatch::RULE as LG204;
pub use lg205_index_dtype::RULE as LG205;
pub use lg206_input_dtype::RULE as LG206;
pub use lg207_dim_out_of_range::RULE as LG207;
pub use lg208_invalid_argument::RULE as LG208;
pub use lg209_dtype_mismatch::RULE as LG209;
pub use lg210_unsupported_rank::RULE as LG210;
pub use lg211_mask_shape_mismatch::RULE as LG211;
pub use lg212_index_broadcast_mismatch::RULE as LG212;
pub use lg213_value_shape_mismatch::RULE as LG213;
pub use lg214_too_many_indices::RULE as LG214;
pub use lg301_class_weight_length::RULE as LG301;
pub use lg302_weight_values::RULE as LG302;
pub use lg303_weight_not_broadcastable::RULE as LG303;
pub use lg401_embedding_index_out_of_range::RULE as LG401;
pub use lg402_index_out_of_bounds::RULE as LG402;
pub use lg403_one_hot_class_out_of_range::RULE as LG403;
pub use lg404_bincount_negative::RULE as LG404;
pub use lg405_ctc_target_out_of_range::RULE as LG405;
pub use lg406_ctc_target_is_blank::RULE as LG406;
pub use lg407_ctc_invalid_lengths::RULE as LG407;
pub use lg408_ctc_infeasible_alignment::RULE as LG408;
pub use lg409_advanced_index_out_of_bounds::RULE as LG409;
pub use lg410_flat_index_out_of_range::RULE as LG410;
pub use lg411_index_op_out_of_bounds::RULE as LG411;
pub use lg412_embedding_bag_index_out_of_range::RULE as LG412;
pub use lg413_embedding_bag_offsets::RULE as LG413;
pub use lg414_token_type_id_out_of_range::RULE as LG414;
pub use lg415_sequence_longer_than_positions::RULE as LG415;
pub use lg416_label_index_equals_classes::RULE as LG416;
pub use lg417_label_set_gap::RULE as LG417;
pub use lg418_background_not_counted::RULE as LG418;
pub use lg501_bce_input_out_of_range::RULE as LG501;
pub use lg502_bce_target_out_of_range::RULE as LG502;
pub use lg503_logits_target_out_of_range::RULE as LG503;
pub use lg504_soft_target_not_distribution::RULE as LG504;
pub use lg505_multinomial_invalid_probabilities::RULE as LG505;
pub use lg506_multinomial_zero_row::RULE as LG506;
pub use lg507_multinomial_too_few_categories::RULE as LG507;
pub use lg508_non_finite_values::RULE as LG508;
pub use lg601_unreadable_file::RULE as LG601;
pub use lg602_corrupt_file::RULE as LG602;
pub use lg603_empty_file::RULE as LG603;
pub use lg604_decompression_bomb::RULE as LG604;
pub use lg605_resize_artefacts::RULE as LG605;
pub use lg606_colour_mask::RULE as LG606;
pub use lg607_mask_image_size_mismatch::RULE as LG607;
pub use lg608_missing_pair::RULE as LG608;
pub use lg609_class_never_seen::RULE as LG609;
pub use lg610_class_in_one_split::RULE as LG610;
pub use lg611_class_imbalance::RULE as LG611;
pub use lg612_unknown_label::RULE as LG612;
pub use lg613_label_column_missing::RULE as LG613;
pub use lg614_non_utf8_path::RULE as LG614;
pub use lg615_binary_255_masks::RULE as LG615;
pub use lg901_unidentified_device_assert::RULE as LG901;
pub use lg902_asynchronous_report::RULE as LG902;
pub use lg903_unexplained_error::RULE as LG903;
pub use lg904_secondary_cuda_error::RULE as LG904;
pub use lg905_kernel_index_overflow::RULE as LG905;
pub use lg906_bernoulli_probability_out_of_range::RULE as LG906;
pub use lg907_embedding_bag_offsets::RULE as LG907;
pub use lg908_assert_async_failed::RULE as LG908;
