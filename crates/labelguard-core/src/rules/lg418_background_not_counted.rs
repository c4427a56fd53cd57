use crate::rule::declare_rule;

declare_rule! {
    /// Labels run from 0 to C on a head of C outputs: the class count leaves out background.
    ///
    /// ## What it checks
    /// Class-index targets of a 2-D `[N, C]` classification (detection heads: box classification) whose values
    /// run from 0 to exactly C, with C the only value out of range and 0 the label of most of them (at least
    /// 8 labels): detection heads classify mostly background proposals.
    ///
    /// ## Why it crashes
    /// The CUDA loss kernel asserts (`t >= 0 && t < n_classes`), the CPU raises `IndexError: Target C is out of
    /// bounds.`
    ///
    /// ## Fix
    /// Count background in the head: torchvision detection models take `num_classes` = object classes + 1
    /// (`FastRCNNPredictor(in_features, num_classes + 1)`), mmdetection 1.x counted background in `num_classes`
    /// too (2.x and later do not: then shift the labels to 0..C-1).
    ///
    /// ## Checked by
    /// - [`crate::ops::classification::background_cause`]
    /// - fixture: `lg418_detection_background` in `tests/rule_fixtures.rs`
    "LG418", "background-not-counted", Error
}
