use crate::rule::declare_rule;

declare_rule! {
    /// The tokenizer's `model_max_length` is longer than the model's position table: sequences of the tokenizer's length index positions past it.
    ///
    /// ## What it checks
    /// `model_max_length` of the tokenizer (`tokenizer_config.json`, or a live tokenizer's) against the positions
    /// the model's learned position table holds: `max_position_embeddings` (`n_positions` for GPT-2), less the
    /// offset of RoBERTa-style models, which count positions from `padding_idx + 1`. Only for models whose
    /// positions are rows of a learned table (BERT, RoBERTa, GPT-2, OPT, CLIP's text model, ...): rotary and
    /// relative positions (Llama, T5) look nothing up. transformers writes `1e30` for a tokenizer without a
    /// bound, which is not a length and is not checked.
    ///
    /// ## Why it crashes
    /// Training scripts size their sequences from the tokenizer: transformers' `run_clm.py` cuts the text into
    /// blocks of `tokenizer.model_max_length` tokens when no `--block_size` is given (capped at 1024 only,
    /// `examples/pytorch/language-modeling/run_clm.py`), and `truncation=True` without `max_length` truncates
    /// to it. A GPT-2 with `n_positions` 32 and a tokenizer saying 64 gets blocks of 64: positions 32..63 are not
    /// rows of `wpe`, and on CUDA the `index_select` kernel asserts (`device-side assert triggered`,
    /// `srcIndex < srcSelectDimSize`); on the CPU PyTorch raises `IndexError: index out of range in self`. It
    /// happens on the first long enough batch, not when the model loads.
    ///
    /// ## Fix
    /// Set the tokenizer's `model_max_length` to the model's positions (`tokenizer.model_max_length = N`, then
    /// `tokenizer.save_pretrained(...)`, or edit `tokenizer_config.json`), or pass the length yourself
    /// (`--block_size N`, `--max_seq_length N`, `max_length=N`).
    ///
    /// ## Checked by
    /// - [`crate::model::check_model`]
    /// - `crates/labelguard-scan/src/analyze/model.rs` (`labelguard scan MODEL_DIR`), `python/labelguard/_model.py` (`labelguard.check_model`)
    /// - tests: `crates/labelguard-model/src/tests.rs`, `tests/python/test_model_trees.py` (GPT-2 saved by transformers)
    "LG814", "tokenizer-longer-than-positions", Error
}
