use crate::rule::declare_rule;

declare_rule! {
    /// The output head is smaller than what its targets can be: an `lm_head` smaller than the vocabulary, or a label beyond `num_labels`.
    ///
    /// ## What it checks
    /// - A language model's separate output head (`lm_head.weight`, `get_output_embeddings()`) against the input
    ///   embedding and the tokenizer: a causal LM's labels are its input ids, so every id the tokenizer emits must
    ///   be a row of the head too. An untied head that was not resized (or a checkpoint saved with a head of an
    ///   older vocabulary) is smaller.
    /// - A classification head (`num_labels`, from `id2label`) against the labels given (Python:
    ///   `check_model(model, tokenizer, labels=...)`): a label at or beyond `num_labels`.
    ///
    /// ## Why it crashes
    /// The loss is `cross_entropy(logits, labels)` over the head's outputs: a target at or beyond the class count
    /// makes the CUDA `nll_loss` kernel assert (`Assertion t >= 0 && t < n_classes failed`) and the CPU raise
    /// `IndexError: Target N is out of bounds`.
    ///
    /// ## Fix
    /// `model.resize_token_embeddings(len(tokenizer))` resizes the head with the embedding; for classification,
    /// build the model with `num_labels` (and `id2label`) for every class of the data
    /// (`AutoModelForSequenceClassification.from_pretrained(..., num_labels=N)`).
    ///
    /// ## Checked by
    /// - [`crate::model::check_model`]
    /// - [`crate::model::check_head_labels`]
    /// - tests: `python/tests/test_model_check.py`
    "LG812", "head-size-mismatch", Error
}
