//! The tokenizer against the model (LG809-LG813): the same checks whether the [`ModelSpec`]
//! was read from a model directory or from a live model.

use super::ModelSpec;
use crate::finding::{count, thousands, Finding, ValueCount};
use crate::rules::{LG809, LG810, LG811, LG812, LG813, LG814};
use crate::severity::Verdict;
use std::collections::BTreeMap;

/// Every finding about the model and its tokenizer, in rule order.
pub fn check_model(spec: &ModelSpec) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(tokenizer_beyond_table(spec));
    out.extend(special_beyond_table(spec));
    out.extend(no_pad_token(spec));
    out.extend(head_smaller_than_vocabulary(spec));
    out.extend(incomplete(spec));
    out.extend(tokenizer_longer_than_positions(spec));
    out
}

/// The ids the model can look up, `0..rows`.
fn in_table(id: i64, rows: u64) -> bool {
    id >= 0 && (id as u64) < rows
}

/// `name (id)` of each token, at most a few, for messages.
fn tokens_str(tokens: &[(String, i64)]) -> String {
    const SHOWN: usize = 5;
    let mut parts: Vec<String> = tokens
        .iter()
        .take(SHOWN)
        .map(|(t, id)| format!("{} ({id})", crate::clip::echo(t)))
        .collect();
    if tokens.len() > SHOWN {
        parts.push(format!("and {} more", tokens.len() - SHOWN));
    }
    parts.join(", ")
}

/// One location per offending token: which table it came from, its id, its text.
fn evidence(finding: Finding, tensor: &str, tokens: &[(String, i64)]) -> Finding {
    let values = tokens
        .iter()
        .map(|(_, id)| ValueCount {
            value: id.to_string(),
            count: 1,
        })
        .collect();
    let locations = tokens.iter().map(|(t, id)| crate::finding::Location {
        tensor: tensor.to_string(),
        index: vec![(*id).max(0) as usize],
        value: crate::clip::echo(t),
    });
    finding.evidence(locations, tokens.len() as u64, values)
}

const RESIZE: &str = "model.resize_token_embeddings(len(tokenizer)) after adding tokens, then save the model again; or use the tokenizer that belongs to this model";

/// LG809: the tokenizer's largest id is not a row of the embedding.
fn tokenizer_beyond_table(spec: &ModelSpec) -> Option<Finding> {
    let tok = spec.tokenizer.as_ref()?;
    let rows = spec.token_rows()?;
    if tok.max_id < rows {
        return None;
    }
    let mut beyond: Vec<(String, i64)> = tok
        .added_tokens
        .iter()
        .chain(&tok.special_tokens)
        .filter(|(_, id)| !in_table(*id, rows))
        .cloned()
        .collect();
    beyond.sort_by_key(|(_, id)| *id);
    beyond.dedup();
    let n_beyond = tok.max_id + 1 - rows;
    let message = format!(
        "the tokenizer ({}) has {} (ids up to {}) but the model looks ids up in {}: {} beyond the table{}",
        tok.source,
        count(tok.len, "token"),
        thousands(tok.max_id),
        spec.token_rows_described()?,
        count(n_beyond, "id"),
        if beyond.is_empty() {
            String::new()
        } else {
            format!(", among them {}", tokens_str(&beyond))
        }
    );
    let hint = (!beyond.is_empty()).then(|| {
        "tokens were added to the tokenizer (add_tokens / add_special_tokens) without resizing the model's embedding".to_string()
    });
    Some(evidence(
        Finding::new(&LG809, Verdict::DeviceAssert, message)
            .maybe_hint(hint)
            .fix(RESIZE),
        "tokenizer",
        &beyond,
    ))
}

/// LG810: a special token id (the tokenizer's or the config's) outside the embedding.
fn special_beyond_table(spec: &ModelSpec) -> Option<Finding> {
    let rows = spec.token_rows()?;
    let mut named: Vec<(String, i64)> = Vec::new();
    if let Some(tok) = &spec.tokenizer {
        named.extend(tok.special_tokens.iter().cloned());
        // A pad id that no special token names (a live tokenizer's `pad_token_id`).
        let unnamed = |id: &i64| !tok.special_tokens.iter().any(|(_, s)| s == id);
        named.extend(
            tok.pad_token_id
                .filter(unnamed)
                .map(|id| ("tokenizer pad_token_id".to_string(), id)),
        );
    }
    let config = [
        ("pad_token_id", spec.pad_token_id),
        ("bos_token_id", spec.bos_token_id),
        ("image_token_id", spec.image_token_id),
    ];
    for (name, id) in config {
        named.extend(id.map(|id| (format!("config {name}"), id)));
    }
    named.extend(
        spec.eos_token_id
            .iter()
            .map(|&id| ("config eos_token_id".to_string(), id)),
    );
    let mut beyond: Vec<(String, i64)> = named
        .into_iter()
        .filter(|(_, id)| !in_table(*id, rows))
        .collect();
    if beyond.is_empty() {
        return None;
    }
    beyond.sort_by_key(|(_, id)| *id);
    beyond.dedup();
    let message = format!(
        "{} outside {}: {}",
        if beyond.len() == 1 {
            "a special token id is".to_string()
        } else {
            format!("{} special token ids are", beyond.len())
        },
        spec.token_rows_described()?,
        tokens_str(&beyond)
    );
    let hint = beyond.iter().any(|(_, id)| *id < 0).then(|| {
        "a negative id (-1 for 'none') is not a row either: set the id to a real token or leave it null"
            .to_string()
    });
    Some(evidence(
        Finding::new(&LG810, Verdict::DeviceAssert, message)
            .maybe_hint(hint)
            .fix(format!("{RESIZE}; or set the config's ids to the tokenizer's (model.config.pad_token_id = tokenizer.pad_token_id)")),
        "special_tokens",
        &beyond,
    ))
}

/// LG811: a tokenizer without a padding token.
fn no_pad_token(spec: &ModelSpec) -> Option<Finding> {
    let tok = spec.tokenizer.as_ref()?;
    if tok.pad_token_id.is_some() {
        return None;
    }
    let message = format!(
        "the tokenizer ({}) has no padding token: tokenizer(..., padding=True) raises 'Asking to pad but the tokenizer does not have a padding token'",
        tok.source
    );
    let hint = spec.pad_token_id.map(|id| {
        format!("the model's config names pad_token_id {id}, but the tokenizer does not know it")
    });
    Some(
        // A warning, not an error: training without padding (packed or equal-length
        // sequences) never needs one.
        Finding::new(&LG811, Verdict::Silent, message)
            .maybe_hint(hint)
            .fix("tokenizer.pad_token = tokenizer.eos_token (and model.config.pad_token_id = tokenizer.pad_token_id), or add one with tokenizer.add_special_tokens({'pad_token': '[PAD]'}) followed by model.resize_token_embeddings(len(tokenizer))"),
    )
}

/// LG812: an output head with fewer rows than the ids its labels can hold.
fn head_smaller_than_vocabulary(spec: &ModelSpec) -> Option<Finding> {
    let head = spec.head_rows?;
    // A head as large as the input table agrees with it: a tokenizer beyond both is LG809's
    // finding, with the same fix; LG812 is for a head that was left behind.
    if spec.token_rows().is_some_and(|rows| head >= rows) {
        return None;
    }
    let tokenizer_ids = spec.tokenizer.as_ref().map(|t| t.max_id.saturating_add(1));
    let needed = tokenizer_ids.into_iter().chain(spec.embedding_rows).max()?;
    if head >= needed {
        return None;
    }
    let message = format!(
        "the output head (lm_head) has {} rows but {} ids can be labels ({}): a label at or beyond {} is outside the head's logits",
        thousands(head),
        thousands(needed),
        match (tokenizer_ids, spec.embedding_rows) {
            (Some(t), _) if t == needed => "the tokenizer's ids".to_string(),
            _ => "the input embedding's rows".to_string(),
        },
        thousands(head)
    );
    Some(
        Finding::new(&LG812, Verdict::DeviceAssert, message)
            .hint("the head was not resized with the embedding (an untied lm_head, or a checkpoint saved with an older head)")
            .fix("model.resize_token_embeddings(len(tokenizer)) resizes the head with the embedding; save the model again"),
    )
}

/// LG813: what the reader could not find, which leaves checks unrun.
fn incomplete(spec: &ModelSpec) -> Vec<Finding> {
    let mut gaps = spec.gaps.clone();
    if spec.token_rows().is_none() && gaps.is_empty() {
        gaps.push(format!(
            "{}: neither a vocab_size nor an input embedding was found",
            spec.source
        ));
    }
    gaps.into_iter()
        .map(|gap| {
            Finding::new(
                &LG813,
                Verdict::Ok,
                format!("{gap}: the token checks that need it do not run"),
            )
            .fix("add the field to config.json (vocab_size: the rows of the input embedding), or save the model with save_pretrained (model.safetensors)")
        })
        .collect()
}

/// LG814: the tokenizer's `model_max_length` beyond the learned position table.
fn tokenizer_longer_than_positions(spec: &ModelSpec) -> Option<Finding> {
    let tok = spec.tokenizer.as_ref()?;
    let length = tok.model_max_length?;
    let positions = spec.max_sequence_len()?;
    if length <= positions || spec.learned_positions != Some(true) {
        return None;
    }
    let table = spec.max_position_embeddings?;
    let message = format!(
        "the tokenizer ({}) says model_max_length {} but the model's learned position table holds {} positions (max_position_embeddings {}{}, {}): a sequence of the tokenizer's length looks positions {}..{} up beyond the table",
        tok.source,
        thousands(length),
        thousands(positions),
        thousands(table),
        if spec.position_offset > 0 {
            format!(" less the {} positions before the first token", spec.position_offset)
        } else {
            String::new()
        },
        spec.source,
        thousands(positions),
        thousands(length - 1)
    );
    Some(
        Finding::new(&LG814, Verdict::DeviceAssert, message)
            .hint("scripts size their sequences from the tokenizer: run_clm.py's blocks are model_max_length tokens when no --block_size is given, and truncation=True truncates to it")
            .fix(format!("tokenizer.model_max_length = {positions} (then tokenizer.save_pretrained), or pass the length: --block_size {positions}, --max_seq_length {positions}, max_length={positions}")),
    )
}

/// LG812 for a classification head: the labels given against `num_labels` (-100, the loss's
/// ignore index, is never a class).
pub fn check_head_labels(spec: &ModelSpec, labels: &[i64]) -> Vec<Finding> {
    const IGNORE_INDEX: i64 = -100;
    let Some(n) = spec.num_labels else {
        return Vec::new();
    };
    let mut bad: BTreeMap<i64, u64> = BTreeMap::new();
    let mut first: Vec<(usize, i64)> = Vec::new();
    for (i, &label) in labels.iter().enumerate() {
        if label != IGNORE_INDEX && !in_table(label, n) {
            *bad.entry(label).or_default() += 1;
            if first.len() < crate::finding::MAX_LOCATIONS {
                first.push((i, label));
            }
        }
    }
    if bad.is_empty() {
        return Vec::new();
    }
    let total: u64 = bad.values().sum();
    let values: Vec<ValueCount> = bad
        .iter()
        .map(|(v, c)| ValueCount {
            value: v.to_string(),
            count: *c,
        })
        .collect();
    let largest = *bad.keys().next_back().expect("not empty");
    let message = format!(
        "{} outside the classification head's {} (num_labels): {}",
        count(total, "label"),
        count(n, "class"),
        crate::finding::values_str(&values, 5)
    );
    let fix = if largest >= 0 {
        format!("build the model with num_labels={} (and id2label for every class): AutoModelForSequenceClassification.from_pretrained(..., num_labels={})", largest + 1, largest + 1)
    } else {
        "labels are 0..num_labels-1, with -100 for 'ignore'".to_string()
    };
    let locations = first.iter().map(|(i, v)| crate::finding::Location {
        tensor: "labels".to_string(),
        index: vec![*i],
        value: v.to_string(),
    });
    vec![Finding::new(&LG812, Verdict::DeviceAssert, message)
        .fix(fix)
        .evidence(locations, total, values)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TokenizerSpec;

    fn bert() -> ModelSpec {
        ModelSpec {
            source: "bert".into(),
            vocab_size: Some(100),
            embedding_rows: Some(100),
            embedding_source: Some("model.safetensors".into()),
            pad_token_id: Some(0),
            tokenizer: Some(TokenizerSpec {
                source: "tokenizer.json".into(),
                len: 100,
                max_id: 99,
                special_tokens: vec![("[PAD]".into(), 0), ("[CLS]".into(), 2)],
                pad_token_id: Some(0),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn codes(spec: &ModelSpec) -> Vec<&'static str> {
        check_model(spec).iter().map(|f| f.code).collect()
    }

    #[test]
    fn a_matching_tokenizer_is_clean() {
        assert!(codes(&bert()).is_empty(), "{:?}", check_model(&bert()));
        // A table rounded up beyond the tokenizer is fine.
        let mut s = bert();
        s.embedding_rows = Some(128);
        assert!(codes(&s).is_empty());
    }

    #[test]
    fn a_grown_tokenizer_is_lg809_and_its_special_tokens_lg810() {
        let mut s = bert();
        let tok = s.tokenizer.as_mut().unwrap();
        tok.len = 102;
        tok.max_id = 101;
        tok.added_tokens.push(("<new>".into(), 100));
        tok.special_tokens.push(("<|im_start|>".into(), 101));
        let found = check_model(&s);
        assert_eq!(codes(&s), ["LG809", "LG810"]);
        assert!(found[0].message.contains("102 tokens (ids up to 101)"));
        assert!(found[0]
            .message
            .contains("input embedding's 100 rows (model.safetensors)"));
        assert!(found[0].message.contains("<new> (100), <|im_start|> (101)"));
        assert_eq!(found[0].count, Some(2));
        assert!(found[1].message.contains("<|im_start|> (101)"));
        assert!(!found[1].message.contains("<new>"));
        // Resized: clean.
        s.embedding_rows = Some(102);
        assert!(codes(&s).is_empty());
    }

    #[test]
    fn config_ids_beyond_the_table_or_negative_are_lg810() {
        let mut s = bert();
        s.eos_token_id = vec![5, 100];
        s.pad_token_id = Some(-1);
        let found = check_model(&s);
        assert_eq!(codes(&s), ["LG810"]);
        assert!(
            found[0].message.contains("2 special token ids"),
            "{}",
            found[0].message
        );
        assert!(found[0].hint.as_deref().unwrap().contains("negative"));
    }

    #[test]
    fn a_pad_token_beyond_the_table_is_named_once() {
        let mut s = bert();
        let tok = s.tokenizer.as_mut().unwrap();
        tok.special_tokens[0].1 = 150;
        tok.pad_token_id = Some(150);
        tok.max_id = 150;
        let found = check_model(&s);
        let lg810 = found.iter().find(|f| f.code == "LG810").unwrap();
        assert!(
            lg810.message.starts_with("a special token id is outside"),
            "{}",
            lg810.message
        );
        assert!(lg810.message.ends_with("[PAD] (150)"), "{}", lg810.message);
        // A live tokenizer's pad id that no special token names is reported under its own name.
        let tok = s.tokenizer.as_mut().unwrap();
        tok.special_tokens.remove(0);
        let found = check_model(&s);
        let lg810 = found.iter().find(|f| f.code == "LG810").unwrap();
        assert!(
            lg810.message.ends_with("tokenizer pad_token_id (150)"),
            "{}",
            lg810.message
        );
    }

    #[test]
    fn the_config_vocab_size_serves_when_the_weights_are_unknown() {
        let mut s = bert();
        s.embedding_rows = None;
        s.vocab_size = Some(50);
        let found = check_model(&s);
        assert_eq!(codes(&s), ["LG809"]);
        assert!(found[0].message.contains("vocab_size 50 (bert)"));
    }

    #[test]
    fn no_pad_token_is_lg811_only_with_a_tokenizer() {
        let mut s = bert();
        s.tokenizer.as_mut().unwrap().pad_token_id = None;
        assert_eq!(codes(&s), ["LG811"]);
        s.tokenizer = None;
        assert!(codes(&s).is_empty());
    }

    #[test]
    fn an_lm_head_smaller_than_the_tokenizer_is_lg812() {
        let mut s = bert();
        s.head_rows = Some(100);
        assert!(codes(&s).is_empty());
        s.head_rows = Some(90);
        assert_eq!(codes(&s), ["LG812"]);
    }

    #[test]
    fn a_grown_tokenizer_beyond_an_untied_head_as_large_as_the_embedding_is_lg809_alone() {
        // Llama's untied lm_head: both tables left at 100 rows, the tokenizer grown to 104.
        let mut s = bert();
        s.head_rows = Some(100);
        let t = s.tokenizer.as_mut().unwrap();
        t.len = 104;
        t.max_id = 103;
        t.added_tokens = vec![("<new>".into(), 103)];
        assert_eq!(codes(&s), ["LG809"]);
        s.head_rows = Some(96);
        assert_eq!(codes(&s), ["LG809", "LG812"]);
    }

    #[test]
    fn classification_labels_beyond_num_labels_are_lg812() {
        let mut s = bert();
        s.num_labels = Some(3);
        assert!(check_head_labels(&s, &[0, 1, 2, -100]).is_empty());
        let found = check_head_labels(&s, &[0, 3, 3, -1, 2]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, "LG812");
        assert_eq!(found[0].count, Some(3));
        assert!(found[0].fix.contains("num_labels=4"), "{}", found[0].fix);
        s.num_labels = None;
        assert!(check_head_labels(&s, &[7]).is_empty());
    }

    #[test]
    fn unknown_sizes_are_lg813_not_silence() {
        let s = ModelSpec {
            source: "dir".into(),
            gaps: vec!["dir/config.json: no vocab_size".into()],
            ..Default::default()
        };
        let found = check_model(&s);
        assert_eq!(codes(&s), ["LG813"]);
        assert!(found[0].message.contains("dir/config.json: no vocab_size"));
        assert_eq!(codes(&ModelSpec::default()), ["LG813"]);
    }
}
