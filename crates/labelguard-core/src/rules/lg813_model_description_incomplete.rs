use crate::rule::declare_rule;

declare_rule! {
    /// The model directory does not say what the token checks need: a field missing from `config.json`, an architecture labelguard does not know.
    ///
    /// ## What it checks
    /// A model directory whose `config.json` states no `vocab_size` (for a `model_type` whose default labelguard
    /// does not know) and whose weights do not show the embedding's rows either, or whose weights lack an input
    /// embedding labelguard recognises. Each gap is named with the file it was looked for in.
    ///
    /// ## Why it matters
    /// Nothing crashes because of it, but the checks of token ids against the embedding (LG801, LG809, LG810)
    /// cannot run: labelguard says so rather than passing the data silently.
    ///
    /// ## Fix
    /// Add the field to `config.json` (`vocab_size`: the embedding's rows), or save the model with
    /// `save_pretrained` so that its weights are `model.safetensors`.
    ///
    /// ## Checked by
    /// - [`crate::model::check_model`]
    /// - tests: `crates/labelguard-model/src/lib.rs`
    "LG813", "model-description-incomplete", Warning
}
