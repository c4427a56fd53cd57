//! Resume and the manifest.
//!
//! Each finished output file appends one JSON line to the journal (next to the output
//! directory, `NEW_DIR.fix-journal.jsonl`): its path, the hash of the input it came from, the
//! fingerprint of its repairs and the hash of the output. A rerun skips a file only when all
//! three still agree and the output on disk hashes to the recorded value; anything else
//! (no line, a line cut off by the kill, a changed input or plan, a damaged output) is redone.
//! At the end the manifest (`NEW_DIR.fix-manifest.json`) is written atomically from the
//! entries and the journal is removed.

use crate::mapping::Moved;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What was done to one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Repaired,
    Copied,
}

/// One output file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub path: String,
    pub action: Action,
    pub input: String,
    pub output: String,
    /// Fingerprint of the repairs applied (empty for copies).
    pub plan: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<Moved>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The output's path when it is not `path` (labelIds written as labelTrainIds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_as: Option<String>,
}

/// The journal and manifest paths of an output directory.
pub fn paths(out: &Path) -> (PathBuf, PathBuf) {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    (
        out.with_file_name(format!("{name}.fix-journal.jsonl")),
        out.with_file_name(format!("{name}.fix-manifest.json")),
    )
}

/// The entries a previous run finished, by path (malformed lines are ignored).
pub fn load(journal: &Path, manifest: &Path) -> BTreeMap<String, Entry> {
    let mut done = BTreeMap::new();
    if let Ok(text) = std::fs::read_to_string(manifest) {
        if let Ok(m) = serde_json::from_str::<Manifest>(&text) {
            for e in m.files {
                done.insert(e.path.clone(), e);
            }
        }
    }
    if let Ok(f) = std::fs::File::open(journal) {
        for line in std::io::BufReader::new(f).lines().map_while(Result::ok) {
            if let Ok(e) = serde_json::from_str::<Entry>(&line) {
                done.insert(e.path.clone(), e);
            }
        }
    }
    done
}

/// Appends entries, one line each, from any thread.
pub struct Journal {
    file: Mutex<std::fs::File>,
}

impl Journal {
    pub fn open(path: &Path) -> std::io::Result<Journal> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Journal {
            file: Mutex::new(file),
        })
    }

    pub fn record(&self, e: &Entry) -> std::io::Result<()> {
        let mut line = serde_json::to_string(e).expect("entries serialise");
        line.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        f.write_all(line.as_bytes())
    }
}

/// Input hash -> output hash and the mapping, for every output file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema: String,
    pub schema_version: u32,
    pub hash: String,
    pub input: String,
    pub output: String,
    pub files: Vec<Entry>,
    /// The repairs of each plan fingerprint (`files[].plan`): the mapping of every file.
    pub plans: BTreeMap<String, Vec<labelguard_labels::repair::Repair>>,
    /// Input files not written to the output, with the reason.
    pub left_alone: Vec<LeftAlone>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeftAlone {
    pub path: String,
    pub reason: String,
    /// Whether the file was copied unchanged into the output.
    pub copied: bool,
}

pub const MANIFEST_SCHEMA: &str = "labelguard-fix-manifest";
