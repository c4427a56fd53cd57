//! Chat datasets: JSONL files whose rows are conversations, as chat fine-tuning scripts read
//! them before the chat template turns them into tokens: a `messages` list of
//! `{role, content}` objects (the OpenAI/ChatML shape), or a ShareGPT `conversations` list of
//! `{from, value}` objects, which TRL converts (`trl.data_utils.maybe_convert_to_chatml`: `from`
//! becomes `role`, `value` becomes `content`, and the roles `human` and `gpt` become `user` and
//! `assistant`).

use super::line_cap::{LineCap, MAX_LINE};
use serde_json::{Map, Value};
use std::io::BufRead;
use std::path::Path;

/// The column of a row that holds its conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatKey {
    Messages,
    Conversations,
}

impl ChatKey {
    pub fn name(self) -> &'static str {
        match self {
            ChatKey::Messages => "messages",
            ChatKey::Conversations => "conversations",
        }
    }
}

/// The lines of a JSONL file, each at most [`MAX_LINE`] bytes.
fn lines(path: &Path) -> Result<impl Iterator<Item = std::io::Result<String>>, String> {
    let (file, _) = crate::source::file::open_regular(path).map_err(|f| f.message)?;
    Ok(std::io::BufReader::new(LineCap::new(file, MAX_LINE)).lines())
}

/// The conversation column of a JSONL file whose first row is a conversation: a `messages` or
/// `conversations` list of objects, and no `input_ids` (a tokenized file is read as tokens).
pub fn chat_key(path: &Path) -> Option<ChatKey> {
    let first = lines(path)
        .ok()?
        .map_while(Result::ok)
        .find(|l| !l.trim().is_empty())?;
    let row: Map<String, Value> = serde_json::from_str(&first).ok()?;
    if row.contains_key(super::tokens::COLUMNS[super::tokens::INPUT_IDS]) {
        return None;
    }
    [ChatKey::Messages, ChatKey::Conversations]
        .into_iter()
        .find(|k| {
            row.get(k.name())
                .and_then(Value::as_array)
                .is_some_and(|m| !m.is_empty() && m.iter().all(Value::is_object))
        })
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

/// The messages of one row, or why the row holds no conversation.
fn conversation(line: &str, key: ChatKey) -> Result<Value, String> {
    let mut row: Map<String, Value> =
        serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let Some(Value::Array(messages)) = row.remove(key.name()) else {
        return Err(format!("no '{}' list", key.name()));
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

/// Calls `sink(row, messages)` for every non-empty line of `path` (rows counted from 0), with
/// the row's messages or why it holds none. Returns the rows; an unreadable file is an error.
pub fn read_conversations(
    path: &Path,
    key: ChatKey,
    sink: &mut dyn FnMut(u64, Result<Value, String>),
) -> Result<u64, String> {
    let mut row = 0u64;
    for (i, line) in lines(path)?.enumerate() {
        let line = line.map_err(|e| format!("line {}: {e}", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        sink(row, conversation(&line, key));
        row += 1;
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sharegpt_rows_become_role_and_content_messages() {
        let line = r#"{"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}, {"from": "system", "value": "s"}], "id": 3}"#;
        assert_eq!(
            conversation(line, ChatKey::Conversations).unwrap(),
            serde_json::json!([
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "yo"},
                {"role": "system", "content": "s"}
            ])
        );
    }

    #[test]
    fn rows_without_a_conversation_say_why() {
        let e = conversation(r#"{"messages": []}"#, ChatKey::Messages).unwrap_err();
        assert!(e.contains("empty"), "{e}");
        let e = conversation(r#"{"messages": ["hi"]}"#, ChatKey::Messages).unwrap_err();
        assert!(e.contains("not an object"), "{e}");
        let e = conversation("{", ChatKey::Messages).unwrap_err();
        assert!(e.contains("not a JSON object"), "{e}");
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
        assert_eq!(chat_key(&p), Some(ChatKey::Messages));
        std::fs::write(
            &p,
            "{\"conversations\": [{\"from\": \"human\", \"value\": \"x\"}]}\n",
        )
        .unwrap();
        assert_eq!(chat_key(&p), Some(ChatKey::Conversations));
        std::fs::write(
            &p,
            "{\"messages\": [{\"role\": \"user\"}], \"input_ids\": [1]}\n",
        )
        .unwrap();
        assert_eq!(chat_key(&p), None);
        std::fs::write(&p, "{\"text\": \"x\", \"label\": 1}\n").unwrap();
        assert_eq!(chat_key(&p), None);
    }
}
