use crate::rule::declare_rule;

declare_rule! {
    /// A category (or class) embedding looked up with the code of a category it has no row for.
    ///
    /// ## What it checks
    /// `embedding` into a table of fewer than 1,000 rows (a table of categories or classes, not a language
    /// model's vocabulary) with ids of `-1` (pandas' `.cat.codes` and scikit-learn's
    /// `OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)` code unseen and missing
    /// categories so). A few ids beyond such a table while most ids are in it get the same hint and fix under
    /// the embedding's own rule (LG401): categories seen only after the table was sized from the training data.
    ///
    /// ## Why it crashes
    /// The CUDA `index_select`/embedding kernel asserts (`srcIndex < srcSelectDimSize`); the CPU raises
    /// `IndexError: index out of range in self`.
    ///
    /// ## Fix
    /// Reserve a row for unknown categories: `num_embeddings = categories + 1`, map every category unseen in
    /// training to that last row (`OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=K)`,
    /// `codes.where(codes >= 0, K)`), and fit the encoder once, on the training data.
    ///
    /// ## Checked by
    /// - [`crate::ops::embedding::embedding_ids`], through [`crate::ops::indexing::table_cause`]
    /// - fixture: `lg421_unseen_category` in `tests/rule_fixtures.rs`
    "LG421", "unseen-category-id", Error
}

/// The hint and fix for ids of unseen categories in a table of `rows` rows.
pub(crate) fn hint_fix(rows: i64, negative: bool) -> (String, String) {
    let hint = if negative {
        "-1 is the code of an unknown or missing category (pandas .cat.codes, OrdinalEncoder(unknown_value=-1)): a category unseen in training has no row in this category table".to_string()
    } else {
        format!("ids beyond the {rows} rows while most ids are in the table: categories unseen when the table was sized from the training data (an encoder refit on new data, a new category at inference)")
    };
    (
        hint,
        format!("reserve a row for unknown categories: num_embeddings={} and map every category unseen in training to id {rows} (OrdinalEncoder(handle_unknown='use_encoded_value', unknown_value={rows}); codes.where(codes >= 0, {rows})); fit the encoder once, on the training data", rows + 1),
    )
}
