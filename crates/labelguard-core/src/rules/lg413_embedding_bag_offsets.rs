use crate::rule::declare_rule;

declare_rule! {
    /// Invalid `offsets` of `embedding_bag`.
    ///
    /// ## What it checks
    /// `offsets` must start at 0, never decrease and never point past the end of `input`.
    ///
    /// ## Why it fails
    /// The CPU raises `offsets[0] has to be 0`, `offsets[-1] can not be greater than input's length`; a decreasing
    /// offset is caught on the CPU and asserts on CUDA (`EmbeddingBag.cu: Assertion `end >= begin` failed`).
    ///
    /// ## Fix
    /// Build offsets as the running sum of the bag lengths starting at 0:
    /// `torch.cat([lengths.new_zeros(1), lengths.cumsum(0)[:-1]])`.
    ///
    /// ## Checked by
    /// - [`crate::ops::embedding_bag::offsets_finding`]
    /// - fixture: `lg413_embedding_bag_offsets` in `tests/rule_fixtures.rs`
    "LG413", "embedding-bag-offsets", Error
}
