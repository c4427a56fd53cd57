//! Chat datasets: rows that are conversations, as chat fine-tuning scripts read them before the
//! chat template turns them into tokens (JSONL lines, a Parquet or `save_to_disk` Arrow column
//! of `list<struct>`, read by [`super::chat_rows`]): a `messages` list of
//! `{role, content}` objects (the OpenAI/ChatML shape), or a ShareGPT `conversations` list of
//! `{from, value}` objects, which TRL converts (`trl.data_utils.maybe_convert_to_chatml`: `from`
//! becomes `role`, `value` becomes `content`, and the roles `human` and `gpt` become `user` and
//! `assistant`).

use super::chat_rows::{lines, Cells};
pub use super::chat_rows::{ChatFormat, ChatKey};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The column that makes a dataset tokenized.
const INPUT_IDS: &str = super::tokens::COLUMNS[super::tokens::INPUT_IDS];

/// The conversation column of a chat dataset: a `messages` or `conversations` list of objects
/// (structs), and no `input_ids` (a tokenized dataset is read as tokens). JSONL: its first
/// row's keys; Parquet and Arrow: the schema's columns.
pub fn chat_key(path: &Path, format: ChatFormat) -> Option<ChatKey> {
    match format {
        ChatFormat::Jsonl => jsonl_key(path),
        ChatFormat::Arrow => arrow_key(path),
        ChatFormat::Parquet => parquet_key(path),
    }
}

const KEYS: [ChatKey; 2] = [ChatKey::Messages, ChatKey::Conversations];

fn jsonl_key(path: &Path) -> Option<ChatKey> {
    let first = lines(path)
        .ok()?
        .map_while(Result::ok)
        .find(|l| !l.trim().is_empty())?;
    let row: Map<String, Value> = serde_json::from_str(&first).ok()?;
    if row.contains_key(INPUT_IDS) {
        return None;
    }
    KEYS.into_iter().find(|k| {
        row.get(k.name())
            .and_then(Value::as_array)
            .is_some_and(|m| !m.is_empty() && m.iter().all(Value::is_object))
    })
}

fn arrow_key(path: &Path) -> Option<ChatKey> {
    use super::arrow_ipc::ArrowType;
    let (file, len) = crate::source::file::open_regular(path).ok()?;
    let fields = super::arrow_ipc::open(std::io::BufReader::new(file), len)
        .ok()?
        .fields;
    if fields.iter().any(|f| f.name == INPUT_IDS) {
        return None;
    }
    KEYS.into_iter().find(|k| {
        fields.iter().any(|f| {
            f.name == k.name()
                && matches!(f.ty, ArrowType::List { .. })
                && f.children
                    .first()
                    .is_some_and(|c| c.ty == ArrowType::Struct)
        })
    })
}

/// A Parquet list of structs: a leaf below the column, repeated, under a group (the
/// `messages.list.element.role` of `Dataset.to_parquet`).
#[cfg(feature = "parquet")]
fn parquet_key(path: &Path) -> Option<ChatKey> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let (file, len) = crate::source::file::open_regular(path).ok()?;
    crate::isolate::isolated(|| {
        let reader = super::parquet_source::ParquetSource::open(file, len)
            .and_then(SerializedFileReader::new)
            .ok()?;
        let schema = reader.metadata().file_metadata().schema_descr_ptr();
        let columns = schema.columns();
        if columns.iter().any(|c| c.path().parts()[0] == INPUT_IDS) {
            return None;
        }
        KEYS.into_iter().find(|k| {
            columns.iter().any(|c| {
                let parts = c.path().parts();
                parts[0] == k.name() && c.max_rep_level() >= 1 && parts.len() >= 3
            })
        })
    })
    .ok()
    .flatten()
}

#[cfg(not(feature = "parquet"))]
fn parquet_key(_: &Path) -> Option<ChatKey> {
    None
}

/// A ShareGPT message as the `{role, content}` message TRL makes of it.
fn from_sharegpt(m: &Map<String, Value>) -> Map<String, Value> {
    m.iter()
        .map(|(k, v)| match k.as_str() {
            "from" => {
                let role = match v.as_str() {
                    Some("human") => Value::from("user"),
                    Some("gpt") => Value::from("assistant"),
                    _ => v.clone(),
                };
                ("role".to_string(), role)
            }
            "value" => ("content".to_string(), v.clone()),
            _ => (k.clone(), v.clone()),
        })
        .collect()
}

/// The messages of one row's cell (its `messages`/`conversations` value), or why the row holds
/// no conversation. ShareGPT messages become `{role, content}` ones.
fn conversation(cell: Value, key: ChatKey) -> Result<Value, String> {
    let messages = match cell {
        Value::Array(m) => m,
        Value::Null => return Err(format!("no '{}' list", key.name())),
        other => {
            return Err(format!(
                "'{}' is not a list: {}",
                key.name(),
                labelguard_core::clip::echo(&other.to_string())
            ))
        }
    };
    if messages.is_empty() {
        return Err(format!("an empty '{}' list", key.name()));
    }
    messages
        .into_iter()
        .map(|m| match (m, key) {
            (Value::Object(o), ChatKey::Messages) => Ok(Value::Object(o)),
            (Value::Object(o), ChatKey::Conversations) => Ok(Value::Object(from_sharegpt(&o))),
            (other, _) => Err(format!(
                "a message that is not an object: {}",
                labelguard_core::clip::echo(&other.to_string())
            )),
        })
        .collect::<Result<Vec<Value>, String>>()
        .map(Value::Array)
}

/// The conversations of a chat dataset, in row order (rows counted from 0 across files): each
/// row's messages, or why the row holds none. The one source the chat checks read, whatever
/// the format; [`Conversations::finish`] says how many rows there were, or why reading stopped.
pub struct Conversations {
    cells: Cells,
    key: ChatKey,
    row: u64,
    error: Option<String>,
}

impl Conversations {
    /// The conversations of column `key` of `files`.
    pub fn open(files: &[PathBuf], format: ChatFormat, key: ChatKey) -> Conversations {
        Conversations {
            cells: super::chat_rows::cells(files, format, key),
            key,
            row: 0,
            error: None,
        }
    }

    /// The rows read, or why the dataset could not be read to its end.
    pub fn finish(self) -> Result<u64, String> {
        match self.error {
            None => Ok(self.row),
            Some(e) => Err(e),
        }
    }
}

impl Iterator for Conversations {
    type Item = (u64, Result<Value, String>);

    fn next(&mut self) -> Option<Self::Item> {
        match self.cells.next()? {
            Ok(cell) => {
                let row = self.row;
                self.row += 1;
                Some((row, cell.and_then(|c| conversation(c, self.key))))
            }
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sharegpt_rows_become_role_and_content_messages() {
        let cell = serde_json::json!([{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}, {"from": "system", "value": "s"}]);
        assert_eq!(
            conversation(cell, ChatKey::Conversations).unwrap(),
            serde_json::json!([
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "yo"},
                {"role": "system", "content": "s"}
            ])
        );
    }

    #[test]
    fn rows_without_a_conversation_say_why() {
        use serde_json::json;
        let e = conversation(json!([]), ChatKey::Messages).unwrap_err();
        assert!(e.contains("empty"), "{e}");
        let e = conversation(json!(["hi"]), ChatKey::Messages).unwrap_err();
        assert!(e.contains("not an object"), "{e}");
        let e = conversation(Value::Null, ChatKey::Messages).unwrap_err();
        assert!(e.contains("no 'messages' list"), "{e}");
        let e = conversation(json!("hi"), ChatKey::Messages).unwrap_err();
        assert!(e.contains("not a list"), "{e}");
    }

    #[test]
    fn only_untokenized_conversation_files_are_chat() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        std::fs::write(
            &p,
            "\n{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}\n",
        )
        .unwrap();
        assert_eq!(chat_key(&p, ChatFormat::Jsonl), Some(ChatKey::Messages));
        std::fs::write(
            &p,
            "{\"conversations\": [{\"from\": \"human\", \"value\": \"x\"}]}\n",
        )
        .unwrap();
        assert_eq!(
            chat_key(&p, ChatFormat::Jsonl),
            Some(ChatKey::Conversations)
        );
        std::fs::write(
            &p,
            "{\"messages\": [{\"role\": \"user\"}], \"input_ids\": [1]}\n",
        )
        .unwrap();
        assert_eq!(chat_key(&p, ChatFormat::Jsonl), None);
        std::fs::write(&p, "{\"text\": \"x\", \"label\": 1}\n").unwrap();
        assert_eq!(chat_key(&p, ChatFormat::Jsonl), None);
    }
}
