//! What a class-id finding (LG101–LG107) is worded from: the facts about one cause's targets,
//! gathered once by `class_ids`, and the words each rule's own file makes of them.

use crate::kernels::Located;
use crate::rule::Rule;

/// The facts one cause of out-of-range class ids is worded from.
pub(crate) struct ClassIdFacts<'a> {
    /// Targets of this cause, and targets read.
    pub n: u64,
    pub count: u64,
    /// The number of classes and the ignore value of the loss ([`NO_IGNORE`] for a loss
    /// without one).
    pub c: i64,
    pub ignore: i64,
    /// The smallest and largest labelled id (the ignore value left out when it could be).
    pub min: i64,
    pub max: i64,
    /// `; first: target[i] = v`, or empty.
    pub first: String,
    /// The bad values, listed for a message.
    pub values: String,
    /// The bad values found, with their places.
    pub located: &'a Located,
    /// The distinct labelled ids (the ignore value left out), when they could be tallied.
    pub ids: &'a [i64],
    /// The bad values are a few stray ones, far rarer than the classes beside them
    /// ([`super::id_weight`]): a data error in their samples, not a convention or a narrow head.
    pub stray: bool,
}

impl ClassIdFacts<'_> {
    /// The targets are one label per sample (a `[N]` target, a table's label column, MNIST's
    /// targets), not the pixels of a mask: the first bad place has a single index.
    pub fn per_sample(&self) -> bool {
        self.located
            .first
            .first()
            .is_some_and(|(i, _)| i.len() == 1)
    }
}

/// The ignore value of a loss that has no `ignore_index` (multi_margin_loss): no class id is it.
pub(crate) const NO_IGNORE: i64 = i64::MIN;

/// The fix of marker values (255 void, -1 padding) for a loss that cannot ignore a target.
pub(crate) fn drop_marked(value: i64) -> String {
    format!("this loss has no ignore_index: drop the samples whose target is {value} (or map {value} to a class) before the loss")
}

/// A finding's words.
pub(crate) struct Words {
    pub message: String,
    pub hint: Option<String>,
    pub fix: String,
}

/// One cause of out-of-range class ids: its rule, and how that rule's file words it.
pub(crate) struct ClassIdCause {
    pub rule: &'static Rule,
    pub words: fn(&ClassIdFacts<'_>) -> Words,
}
