use crate::rule::declare_rule;

declare_rule! {
    /// The model's chat template refuses a conversation of a chat dataset.
    ///
    /// ## What it checks
    /// Each conversation of a chat dataset (`messages` lists of `{role, content}`, ShareGPT
    /// `conversations` of `{from, value}`; JSONL lines, or a column of Parquet or a `save_to_disk` folder) rendered with the chat template of the model directory given
    /// with `--model` (`chat_template.jinja`, or `chat_template` in `tokenizer_config.json`), as
    /// `tokenizer.apply_chat_template(messages)` renders it. A template that calls
    /// `raise_exception(...)` on a conversation (roles that do not alternate, a system message where it
    /// accepts none, an unknown role) refuses it; the finding quotes the template's words and names the rows.
    ///
    /// ## Why it matters
    /// The training script's preprocessing (`apply_chat_template`, TRL's `SFTTrainer`) raises
    /// `jinja2.exceptions.TemplateError` on the first such conversation: the run stops before training.
    ///
    /// ## Fix
    /// Repair or drop the conversations named (merge consecutive messages of one role, map ShareGPT roles
    /// `human`/`gpt` to `user`/`assistant`), or train with a template that accepts them.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg816_chat_template_refused.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/chat.rs`, `tests/python/test_chat_templates.py`,
    ///   `tests/python/test_chat_tables.py`
    "LG816", "chat-template-refused", Error
}
