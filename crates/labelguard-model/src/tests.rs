use super::*;
use labelguard_core::model::check_model;
use serde_json::json;
use std::fs;

/// A safetensors file of F32 tensors of these shapes (zero-filled).
fn safetensors(path: &Path, tensors: &[(&str, &[u64])]) {
    let mut header = serde_json::Map::new();
    let mut offset = 0u64;
    for (name, shape) in tensors {
        let bytes = shape.iter().product::<u64>() * 4;
        header.insert(
            name.to_string(),
            json!({"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + bytes]}),
        );
        offset += bytes;
    }
    let header = serde_json::to_vec(&header).unwrap();
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend(header);
    out.resize(out.len() + offset as usize, 0);
    fs::write(path, out).unwrap();
}

fn write_json(dir: &Path, name: &str, v: serde_json::Value) {
    fs::write(dir.join(name), serde_json::to_vec(&v).unwrap()).unwrap();
}

/// A WordPiece tokenizer.json of `n` base tokens (`[PAD]` 0, `[UNK]` 1, `[CLS]` 2, `[SEP]` 3),
/// with these added tokens `(id, content, special)`.
fn tokenizer_json(dir: &Path, n: u64, added: &[(u64, &str, bool)]) {
    let mut vocab = serde_json::Map::new();
    for (i, t) in ["[PAD]", "[UNK]", "[CLS]", "[SEP]"].iter().enumerate() {
        vocab.insert(t.to_string(), json!(i));
    }
    for i in 4..n {
        vocab.insert(format!("w{i}"), json!(i));
    }
    let mut added_tokens: Vec<_> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": i, "content": t, "special": true}))
        .collect();
    added_tokens.extend(
        added
            .iter()
            .map(|(id, c, s)| json!({"id": id, "content": c, "special": s})),
    );
    write_json(
        dir,
        "tokenizer.json",
        json!({"version": "1.0", "added_tokens": added_tokens, "model": {"type": "WordPiece", "vocab": vocab}}),
    );
}

fn bert(dir: &Path, rows: u64) {
    write_json(
        dir,
        "config.json",
        json!({"architectures": ["BertForMaskedLM"], "model_type": "bert", "vocab_size": rows,
               "max_position_embeddings": 64, "type_vocab_size": 2, "pad_token_id": 0}),
    );
    safetensors(
        &dir.join("model.safetensors"),
        &[
            ("bert.embeddings.word_embeddings.weight", &[rows, 4]),
            ("bert.embeddings.position_embeddings.weight", &[64, 4]),
        ],
    );
    write_json(
        dir,
        "tokenizer_config.json",
        json!({"pad_token": "[PAD]", "model_max_length": 64}),
    );
}

fn codes(spec: &ModelSpec) -> Vec<&'static str> {
    check_model(spec).iter().map(|f| f.code).collect()
}

#[test]
fn a_bert_directory_is_read_and_clean() {
    let d = tempfile::tempdir().unwrap();
    bert(d.path(), 40);
    tokenizer_json(d.path(), 40, &[]);
    assert!(is_model_dir(d.path()));
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!(s.model_type.as_deref(), Some("bert"));
    assert_eq!(s.architecture.as_deref(), Some("BertForMaskedLM"));
    assert_eq!(
        (s.vocab_size, s.embedding_rows, s.head_rows),
        (Some(40), Some(40), None)
    );
    assert_eq!(
        (s.max_position_embeddings, s.position_offset),
        (Some(64), 0)
    );
    assert_eq!(s.learned_positions, Some(true));
    assert_eq!((s.type_vocab_size, s.pad_token_id), (Some(2), Some(0)));
    let t = s.tokenizer.as_ref().unwrap();
    assert_eq!((t.len, t.max_id, t.pad_token_id), (40, 39, Some(0)));
    assert_eq!(t.model_max_length, Some(64));
    assert_eq!(t.special_tokens.len(), 4);
    assert!(s.gaps.is_empty(), "{:?}", s.gaps);
    assert!(codes(&s).is_empty(), "{:?}", check_model(&s));
}

#[test]
fn a_grown_tokenizer_without_resize_is_lg809_and_lg810() {
    let d = tempfile::tempdir().unwrap();
    bert(d.path(), 40);
    tokenizer_json(d.path(), 40, &[(40, "newword", false), (41, "<img>", true)]);
    let s = read_model_dir(d.path()).unwrap();
    let t = s.tokenizer.as_ref().unwrap();
    assert_eq!((t.len, t.max_id), (42, 41));
    assert_eq!(t.added_tokens, [("newword".to_string(), 40)]);
    assert_eq!(codes(&s), ["LG809", "LG810"]);
    // The config promising more rows does not hide the stored table's size.
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "bert", "vocab_size": 42, "pad_token_id": 0}),
    );
    assert_eq!(
        codes(&read_model_dir(d.path()).unwrap()),
        ["LG809", "LG810"]
    );
    // Resized weights: clean.
    safetensors(
        &d.path().join("model.safetensors"),
        &[("bert.embeddings.word_embeddings.weight", &[42, 4])],
    );
    assert!(codes(&read_model_dir(d.path()).unwrap()).is_empty());
}

#[test]
fn no_pad_token_is_lg811() {
    let d = tempfile::tempdir().unwrap();
    bert(d.path(), 40);
    tokenizer_json(d.path(), 40, &[]);
    write_json(
        d.path(),
        "tokenizer_config.json",
        json!({"eos_token": "[SEP]"}),
    );
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!(s.tokenizer.as_ref().unwrap().pad_token_id, None);
    assert_eq!(codes(&s), ["LG811"]);
}

#[test]
fn roberta_positions_count_from_padding_idx_plus_one() {
    let d = tempfile::tempdir().unwrap();
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "xlm-roberta", "vocab_size": 10, "max_position_embeddings": 514, "pad_token_id": 1}),
    );
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!((s.position_offset, s.max_sequence_len()), (2, Some(512)));
    // Defaults of the configuration class for what the file leaves out.
    write_json(d.path(), "config.json", json!({"model_type": "roberta"}));
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!(
        (s.vocab_size, s.max_position_embeddings, s.pad_token_id),
        (Some(50265), Some(512), Some(1))
    );
    assert_eq!(s.max_sequence_len(), Some(510));
}

#[test]
fn gpt2_aliases_and_eos_lists() {
    let d = tempfile::tempdir().unwrap();
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "gpt2", "vocab_size": 50, "n_positions": 32, "n_embd": 8, "eos_token_id": [3, 4], "bos_token_id": 3}),
    );
    safetensors(
        &d.path().join("model.safetensors"),
        &[
            ("transformer.wte.weight", &[50, 8]),
            ("transformer.wpe.weight", &[32, 8]),
        ],
    );
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!(
        (s.max_position_embeddings, s.learned_positions),
        (Some(32), Some(true))
    );
    assert_eq!(
        (s.eos_token_id.clone(), s.bos_token_id, s.pad_token_id),
        (vec![3, 4], Some(3), None)
    );
    assert_eq!(s.embedding_rows, Some(50));
    assert!(s
        .embedding_source
        .as_deref()
        .unwrap()
        .starts_with("transformer.wte.weight in "));
}

#[test]
fn a_vlm_reads_its_text_config_and_image_tokens() {
    let d = tempfile::tempdir().unwrap();
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"],
               "image_token_index": 60, "vision_config": {"model_type": "clip_vision_model", "vocab_size": 7},
               "text_config": {"model_type": "llama", "vocab_size": 64, "max_position_embeddings": 128,
                               "rope_parameters": {"rope_theta": 10000.0}, "eos_token_id": 2, "pad_token_id": null}}),
    );
    write_json(
        d.path(),
        "processor_config.json",
        json!({"image_seq_length": 16}),
    );
    safetensors(
        &d.path().join("model.safetensors"),
        &[
            ("model.language_model.embed_tokens.weight", &[64, 4]),
            (
                "model.vision_tower.vision_model.embeddings.position_embedding.weight",
                &[5, 4],
            ),
            ("lm_head.weight", &[60, 4]),
        ],
    );
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!(
        (s.vocab_size, s.max_position_embeddings),
        (Some(64), Some(128))
    );
    assert_eq!(s.learned_positions, Some(false));
    assert_eq!((s.image_token_id, s.tokens_per_image), (Some(60), Some(16)));
    assert_eq!((s.embedding_rows, s.head_rows), (Some(64), Some(60)));
    assert_eq!(s.pad_token_id, None);
    // A head smaller than the embedding: LG812.
    assert_eq!(codes(&s), ["LG812"]);
}

#[test]
fn unigram_vocabularies_and_v4_tokenizer_configs() {
    let d = tempfile::tempdir().unwrap();
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "t5", "vocab_size": 8}),
    );
    write_json(
        d.path(),
        "tokenizer.json",
        json!({"model": {"type": "Unigram", "vocab": [["<pad>", 0.0], ["</s>", 0.0], ["a", -1.5], ["b", -2.0], ["a", -3.0]]},
               "added_tokens": [{"id": 0, "content": "<pad>", "special": true}]}),
    );
    write_json(
        d.path(),
        "tokenizer_config.json",
        json!({"added_tokens_decoder": {"9": {"content": "<extra>", "special": true}},
               "pad_token": {"__type": "AddedToken", "content": "<pad>"}, "model_max_length": 1e30}),
    );
    let s = read_model_dir(d.path()).unwrap();
    let t = s.tokenizer.as_ref().unwrap();
    // Four distinct pieces (the repeated "a" keeps its last id, 4), plus one added token.
    assert_eq!(
        (t.len, t.max_id, t.pad_token_id, t.model_max_length),
        (5, 9, Some(0), None)
    );
    assert_eq!(s.learned_positions, Some(false));
    assert_eq!(codes(&s), ["LG809", "LG810"]);
}

#[test]
fn sharded_weights_are_found_through_the_index() {
    let d = tempfile::tempdir().unwrap();
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "llama", "vocab_size": 32}),
    );
    safetensors(
        &d.path().join("model-00001-of-00002.safetensors"),
        &[("model.embed_tokens.weight", &[36, 4])],
    );
    safetensors(
        &d.path().join("model-00002-of-00002.safetensors"),
        &[("lm_head.weight", &[36, 4])],
    );
    write_json(
        d.path(),
        "model.safetensors.index.json",
        json!({"metadata": {}, "weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors",
                                              "lm_head.weight": "model-00002-of-00002.safetensors"}}),
    );
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!((s.embedding_rows, s.head_rows), (Some(36), Some(36)));
    // A shard that escapes the directory is refused, naming the index.
    write_json(
        d.path(),
        "model.safetensors.index.json",
        json!({"weight_map": {"model.embed_tokens.weight": "../x.safetensors"}}),
    );
    let e = read_model_dir(d.path()).unwrap_err();
    assert!(
        e.to_string().contains("model.safetensors.index.json"),
        "{e}"
    );
    // A shard that is missing is named.
    write_json(
        d.path(),
        "model.safetensors.index.json",
        json!({"weight_map": {"model.embed_tokens.weight": "gone.safetensors"}}),
    );
    let e = read_model_dir(d.path()).unwrap_err();
    assert_eq!(e.problem, Problem::Missing);
    assert!(e.to_string().contains("gone.safetensors"), "{e}");
}

#[test]
fn bad_files_are_errors_that_name_them() {
    let d = tempfile::tempdir().unwrap();
    let e = read_model_dir(d.path()).unwrap_err();
    assert_eq!(e.problem, Problem::Missing);
    assert!(
        e.to_string().contains("config.json") && e.to_string().contains("missing"),
        "{e}"
    );

    fs::write(d.path().join("config.json"), b"{\"vocab_size\": 3,").unwrap();
    let e = read_model_dir(d.path()).unwrap_err();
    assert_eq!(e.problem, Problem::Corrupt);
    assert!(e.to_string().contains("config.json: not valid JSON"), "{e}");

    fs::write(d.path().join("config.json"), b"[1, 2]").unwrap();
    assert_eq!(
        read_model_dir(d.path()).unwrap_err().problem,
        Problem::Corrupt
    );

    fs::write(d.path().join("config.json"), b"").unwrap();
    assert_eq!(
        read_model_dir(d.path()).unwrap_err().problem,
        Problem::Empty
    );

    write_json(d.path(), "config.json", json!({"vocab_size": "many"}));
    let e = read_model_dir(d.path()).unwrap_err();
    assert!(
        e.to_string()
            .contains("vocab_size is \"many\", not a whole number"),
        "{e}"
    );

    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "bert", "vocab_size": 4}),
    );
    fs::write(
        d.path().join("tokenizer.json"),
        b"{\"model\": {\"vocab\": 5}}",
    )
    .unwrap();
    let e = read_model_dir(d.path()).unwrap_err();
    assert!(
        e.to_string().contains("tokenizer.json: not valid JSON"),
        "{e}"
    );

    // Huge: refused before it is read (a sparse file).
    let f = fs::File::create(d.path().join("tokenizer.json")).unwrap();
    f.set_len(TOKENIZER_LIMIT + 1).unwrap();
    let e = read_model_dir(d.path()).unwrap_err();
    assert_eq!(e.problem, Problem::TooLarge);
    assert!(e.to_string().contains("tokenizer.json"), "{e}");
    fs::remove_file(d.path().join("tokenizer.json")).unwrap();

    fs::write(
        d.path().join("model.safetensors"),
        b"not a safetensors file",
    )
    .unwrap();
    let e = read_model_dir(d.path()).unwrap_err();
    assert_eq!(e.problem, Problem::Corrupt);
    assert!(e.to_string().contains("model.safetensors"), "{e}");

    let file = d.path().join("config.json");
    assert_eq!(
        read_model_dir(&file).unwrap_err().problem,
        Problem::Unreadable
    );
}

#[test]
fn an_unknown_architecture_without_vocab_size_is_a_gap() {
    let d = tempfile::tempdir().unwrap();
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "my-own-lm", "architectures": ["MyLM"]}),
    );
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!(s.token_rows(), None);
    assert_eq!(codes(&s), ["LG813"]);
    let f = &check_model(&s)[0];
    assert!(
        f.message
            .contains("config.json: no vocab_size (model_type 'my-own-lm'"),
        "{}",
        f.message
    );
    // Weights without a recognised embedding are a gap too.
    safetensors(
        &d.path().join("model.safetensors"),
        &[("encoder.layer.0.weight", &[4, 4])],
    );
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!(s.gaps.len(), 2, "{:?}", s.gaps);
}

#[test]
fn slow_tokenizer_files_are_counted() {
    let d = tempfile::tempdir().unwrap();
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "bert", "vocab_size": 5}),
    );
    fs::write(d.path().join("vocab.txt"), "[PAD]\n[UNK]\na\nb\nc\n").unwrap();
    write_json(d.path(), "added_tokens.json", json!({"new": 5}));
    write_json(
        d.path(),
        "special_tokens_map.json",
        json!({"pad_token": "[PAD]", "unk_token": "[UNK]"}),
    );
    let s = read_model_dir(d.path()).unwrap();
    let t = s.tokenizer.as_ref().unwrap();
    assert_eq!((t.len, t.max_id, t.pad_token_id), (6, 5, Some(0)));
    assert_eq!(codes(&s), ["LG809"]);
    // A SentencePiece model alone is not read: a gap, not a guess.
    fs::remove_file(d.path().join("vocab.txt")).unwrap();
    fs::write(d.path().join("tokenizer.model"), b"\x0a\x05").unwrap();
    let s = read_model_dir(d.path()).unwrap();
    assert!(s.tokenizer.is_none());
    assert!(s.gaps[0].contains("tokenizer.model"), "{:?}", s.gaps);
}

#[test]
fn num_labels_belongs_to_classification_heads() {
    let d = tempfile::tempdir().unwrap();
    let labels = json!({"0": "neg", "1": "neu", "2": "pos"});
    let read = |arch: Option<&str>, extra: serde_json::Value| {
        let mut c = json!({"model_type": "bert", "vocab_size": 4});
        if let Some(a) = arch {
            c["architectures"] = json!([a]);
        }
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        write_json(d.path(), "config.json", c);
        read_model_dir(d.path()).unwrap().num_labels
    };
    let with_labels = json!({"id2label": labels});
    assert_eq!(
        read(Some("BertForSequenceClassification"), with_labels.clone()),
        Some(3)
    );
    assert_eq!(read(None, with_labels.clone()), Some(3));
    assert_eq!(read(Some("BertForMaskedLM"), with_labels), None);
    assert_eq!(
        read(Some("BertForTokenClassification"), json!({"num_labels": 5})),
        Some(5)
    );
    assert_eq!(
        read(Some("BertForSequenceClassification"), json!({})),
        Some(2)
    );
}

#[test]
fn llava_tokens_per_image_follow_its_processor() {
    let d = tempfile::tempdir().unwrap();
    write_json(
        d.path(),
        "config.json",
        json!({"model_type": "llava", "text_config": {"model_type": "llama", "vocab_size": 40}, "image_token_index": 39}),
    );
    // transformers 5: the image processor nested in processor_config.json.
    write_json(
        d.path(),
        "processor_config.json",
        json!({"patch_size": 14, "num_additional_image_tokens": 1, "vision_feature_select_strategy": "default",
               "image_processor": {"crop_size": {"height": 336, "width": 336}}}),
    );
    assert_eq!(
        read_model_dir(d.path()).unwrap().tokens_per_image,
        Some(576)
    );
    // transformers 4: the image processor's own file; the "full" strategy keeps the CLS token.
    write_json(
        d.path(),
        "processor_config.json",
        json!({"patch_size": 14, "vision_feature_select_strategy": "full"}),
    );
    write_json(
        d.path(),
        "preprocessor_config.json",
        json!({"crop_size": {"height": 28, "width": 42}}),
    );
    assert_eq!(read_model_dir(d.path()).unwrap().tokens_per_image, Some(6));
    // A count the processor states wins; without a processor, LlavaConfig's default.
    write_json(
        d.path(),
        "preprocessor_config.json",
        json!({"image_seq_length": 9}),
    );
    assert_eq!(read_model_dir(d.path()).unwrap().tokens_per_image, Some(9));
    fs::remove_file(d.path().join("preprocessor_config.json")).unwrap();
    fs::remove_file(d.path().join("processor_config.json")).unwrap();
    assert_eq!(
        read_model_dir(d.path()).unwrap().tokens_per_image,
        Some(576)
    );
    fs::write(d.path().join("processor_config.json"), "[]").unwrap();
    let e = read_model_dir(d.path()).unwrap_err();
    assert!(
        e.to_string()
            .contains("processor_config.json: not a JSON object"),
        "{e}"
    );
}

#[test]
fn a_tokenizer_longer_than_the_learned_positions_is_lg814() {
    let d = tempfile::tempdir().unwrap();
    bert(d.path(), 40);
    tokenizer_json(d.path(), 40, &[]);
    // bert's table: 64 positions; the tokenizer says 64, then 128.
    assert!(codes(&read_model_dir(d.path()).unwrap()).is_empty());
    write_json(
        d.path(),
        "tokenizer_config.json",
        json!({"pad_token": "[PAD]", "model_max_length": 128}),
    );
    let s = read_model_dir(d.path()).unwrap();
    assert_eq!(codes(&s), ["LG814"]);
    let f = &check_model(&s)[0];
    assert!(
        f.message.contains("model_max_length 128") && f.message.contains("64 positions"),
        "{}",
        f.message
    );
    // Rotary positions look nothing up: not checked.
    let mut rotary = s.clone();
    rotary.learned_positions = Some(false);
    assert!(codes(&rotary).is_empty());
    // RoBERTa-style models hold max_position_embeddings - (pad + 1) tokens.
    let mut roberta = s.clone();
    roberta.max_position_embeddings = Some(130);
    roberta.position_offset = 2;
    assert!(codes(&roberta).is_empty());
    roberta.position_offset = 3;
    assert_eq!(codes(&roberta), ["LG814"]);
}

/// A diffusers pipeline's text encoder (CLIP's text model, its embedding `token_embedding`)
/// and its tokenizer in the sibling folder.
fn pipeline(root: &Path, rows: u64, tokenizer_len: u64) -> std::path::PathBuf {
    write_json(
        root,
        "model_index.json",
        json!({"_class_name": "StableDiffusionPipeline",
               "text_encoder": ["transformers", "CLIPTextModel"],
               "tokenizer": ["transformers", "CLIPTokenizer"]}),
    );
    let enc = root.join("text_encoder");
    let tok = root.join("tokenizer");
    fs::create_dir_all(&enc).unwrap();
    fs::create_dir_all(&tok).unwrap();
    write_json(
        &enc,
        "config.json",
        json!({"architectures": ["CLIPTextModel"], "model_type": "clip_text_model",
               "vocab_size": rows, "max_position_embeddings": 16}),
    );
    safetensors(
        &enc.join("model.safetensors"),
        &[
            ("text_model.embeddings.token_embedding.weight", &[rows, 4]),
            ("text_model.embeddings.position_embedding.weight", &[16, 4]),
        ],
    );
    tokenizer_json(&tok, tokenizer_len, &[]);
    write_json(
        &tok,
        "tokenizer_config.json",
        json!({"pad_token": "[PAD]", "model_max_length": 16}),
    );
    enc
}

#[test]
fn a_pipelines_text_encoder_is_read_with_its_sibling_tokenizer() {
    let d = tempfile::tempdir().unwrap();
    let enc = pipeline(d.path(), 40, 40);
    let s = read_model_dir(&enc).unwrap();
    assert_eq!(s.embedding_rows, Some(40));
    let t = s.tokenizer.as_ref().expect("the sibling tokenizer");
    assert!(t.source.contains("tokenizer"), "{}", t.source);
    assert_eq!(t.len, 40);
    assert!(s.gaps.is_empty(), "{:?}", s.gaps);
    assert!(codes(&s).is_empty(), "{:?}", check_model(&s));
    // A tokenizer larger than the encoder's table.
    let d = tempfile::tempdir().unwrap();
    let enc = pipeline(d.path(), 40, 44);
    assert_eq!(codes(&read_model_dir(&enc).unwrap()), ["LG809"]);
    // Stable Diffusion XL's second text encoder has the second tokenizer.
    fs::rename(
        d.path().join("text_encoder"),
        d.path().join("text_encoder_2"),
    )
    .unwrap();
    fs::rename(d.path().join("tokenizer"), d.path().join("tokenizer_2")).unwrap();
    let enc = d.path().join("text_encoder_2");
    assert_eq!(codes(&read_model_dir(&enc).unwrap()), ["LG809"]);
    // Without model_index.json the folder is no pipeline's: no tokenizer is borrowed.
    fs::remove_file(d.path().join("model_index.json")).unwrap();
    assert!(read_model_dir(&enc).unwrap().tokenizer.is_none());
}
