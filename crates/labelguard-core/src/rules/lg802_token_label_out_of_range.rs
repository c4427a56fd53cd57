use crate::rule::declare_rule;

declare_rule! {
    /// A label of a tokenized dataset is outside the classes the model's loss has, and is not the ignore index.
    ///
    /// ## What it checks
    /// The `labels` column as transformers' heads read it, decided by the model's `architectures[0]`:
    /// - language models (`*ForCausalLM`, `*ForMaskedLM`, `*ForConditionalGeneration`, ...): every label of the
    ///   row against `[0, V)`, `V` the output head's rows (else the embedding's, else `vocab_size`);
    /// - `*ForTokenClassification`: every label of the row against `[0, num_labels)`;
    /// - `*ForSequenceClassification` (and any scalar `label`/`labels` column): one label per row against
    ///   `[0, num_labels)`.
    ///
    /// The ignore index (`-100`, `--ignore-index`) is accepted everywhere; other negative labels are LG803.
    /// Without `--model` the upper bound is unknown and only LG803 is checked.
    ///
    /// ## Why it crashes
    /// `cross_entropy` gathers the logit of each label: on CUDA `nll_loss` asserts `t >= 0 && t < n_classes`
    /// (`device-side assert triggered`), on the CPU it raises `IndexError: Target ... is out of bounds.`
    ///
    /// ## Fix
    /// For language models, `model.resize_token_embeddings(len(tokenizer))` (it resizes the tied head too) or
    /// labels made by the model's own tokenizer; for classification, `num_labels` (and `id2label`) covering every
    /// class of the data: `AutoModelForSequenceClassification.from_pretrained(..., num_labels=N)`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg802_token_label_out_of_range.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/tokens.rs`, `tests/python/test_token_datasets.py`
    "LG802", "token-label-out-of-range", Error
}
