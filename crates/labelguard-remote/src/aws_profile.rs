//! The AWS CLI's shared files, read as it reads them (object_store does not read them):
//! `~/.aws/credentials` (sections `[NAME]`) and `~/.aws/config` (sections `[profile NAME]`, and
//! `[default]`), with `AWS_SHARED_CREDENTIALS_FILE` / `AWS_CONFIG_FILE` overriding the paths
//! and `AWS_DEFAULT_PROFILE` or `AWS_PROFILE` naming the profile (`default` otherwise).
//! Sources: <https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html>, and
//! botocore (`configprovider.py`: the profile variables in that order and the files' default
//! paths; `session.py` `full_config` and `get_scoped_config`; `configloader.py`).
//!
//! As botocore does: a shared file that does not exist is no file (a CI job may point the
//! variables at paths that are not there and give the keys in the environment); the
//! credentials file's keys win over the config file's; a profile that is named must exist in
//! one of them, even `default`. Unlike botocore, which skips a path that is not a regular file
//! and reads a file it may not open as empty, a shared file that is there but cannot be read
//! is an error: labelguard is never silent about settings it was given and could not use.

use crate::ini::{self, Value};
use crate::Env;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The settings of one profile: the credentials file's section over the config file's.
#[derive(Debug, Default, PartialEq)]
pub struct Profile {
    pub values: BTreeMap<String, String>,
}

impl Profile {
    /// A key's value; an empty one counts as unset.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// One shared file: the variable that overrides its path and its place under `~/.aws`.
struct SharedFile {
    var: &'static str,
    file: &'static str,
    what: &'static str,
}

const CREDENTIALS: SharedFile = SharedFile {
    var: "AWS_SHARED_CREDENTIALS_FILE",
    file: "credentials",
    what: "the AWS credentials file",
};
const CONFIG: SharedFile = SharedFile {
    var: "AWS_CONFIG_FILE",
    file: "config",
    what: "the AWS config file",
};

impl SharedFile {
    /// The path: the variable's (a leading `~` is the home folder, as botocore expands it),
    /// else `~/.aws/FILE`; none without a home.
    fn path(&self, env: &Env) -> Option<PathBuf> {
        let home = env.get("HOME").map(PathBuf::from);
        match env.get(self.var) {
            Some(p) => match p.strip_prefix('~') {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                    Some(home?.join(rest.trim_start_matches('/')))
                }
                _ => Some(PathBuf::from(p)),
            },
            None => Some(home?.join(".aws").join(self.file)),
        }
    }

    /// How the file is named in messages: its path, and the variable that named it.
    fn named(&self, env: &Env, path: &Path) -> String {
        match env.get(self.var) {
            Some(_) => format!("{} {} ({})", self.what, path.display(), self.var),
            None => format!("{} {}", self.what, path.display()),
        }
    }

    /// The file's sections; `None` when it does not exist (nor does a folder on its path).
    fn read(&self, env: &Env, path: &Path) -> Result<Option<ini::Sections>, String> {
        let named = || self.named(env, path);
        let bytes = match std::fs::metadata(path) {
            Err(e) if is_absent(&e) => return Ok(None),
            Ok(m) if m.is_dir() => {
                return Err(format!("{} is a folder, not a file", named()));
            }
            _ => std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", named()))?,
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
            format!("cannot read {}, line {line}: not UTF-8 text", named())
        })?;
        ini::parse(&text)
            .map(Some)
            .map_err(|e| format!("cannot read {}, line {}: {}", named(), e.line, e.what))
    }
}

/// A path that is not there: the file, or a folder on the way (a file where one should be).
fn is_absent(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound || e.kind() == std::io::ErrorKind::NotADirectory
}

/// The profile the environment names, from the shared files. `Err` when a file that is there
/// cannot be read or parsed (naming the file, and the line), or when the profile the
/// environment names is in neither file (the AWS CLI's "The config profile (NAME) could not be
/// found"); the default profile may be absent (an empty profile), and so may either file.
pub fn load(env: &Env) -> Result<Profile, String> {
    let var = ["AWS_DEFAULT_PROFILE", "AWS_PROFILE"]
        .into_iter()
        .find(|v| env.get(v).is_some());
    let name = var.and_then(|v| env.get(v)).unwrap_or("default");
    let mut profiles: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    let mut looked_in = Vec::new();
    for shared in [CONFIG, CREDENTIALS] {
        let Some(path) = shared.path(env) else {
            continue;
        };
        let sections = shared.read(env, &path)?;
        looked_in.push(match sections {
            Some(_) => shared.named(env, &path),
            None => format!("{} (absent)", shared.named(env, &path)),
        });
        for (section, values) in sections.unwrap_or_default() {
            if shared.var == CONFIG.var {
                // A later section of the same profile replaces an earlier one.
                if let Some(profile) = config_profile(&section) {
                    profiles.insert(profile, values);
                }
            } else {
                profiles.entry(section).or_default().extend(values);
            }
        }
    }
    let values = match (profiles.remove(name), var) {
        (Some(values), _) => values,
        (None, None) => BTreeMap::new(),
        (None, Some(var)) => {
            let files = match looked_in.as_slice() {
                [] => "shared file (no HOME, AWS_CONFIG_FILE or AWS_SHARED_CREDENTIALS_FILE)"
                    .to_string(),
                files => files.join(" nor "),
            };
            return Err(format!(
                "The config profile ({name}) could not be found: {var} names it, and it is in neither {files}"
            ));
        }
    };
    Ok(Profile {
        values: values
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::Text(t) => Some((k, t)),
                // A nested block (`s3 =` and its lines) applies to one service only.
                Value::Nested(_) => None,
            })
            .collect(),
    })
}

/// The profile a config file's section holds: `[default]`, or `[profile NAME]` (botocore's
/// `build_profile_map`: a section starting with "profile" split as a shell splits words, two
/// of them).
fn config_profile(section: &str) -> Option<String> {
    if section == "default" {
        return Some(section.to_string());
    }
    if !section.starts_with("profile") {
        return None;
    }
    match shell_words(section)?.as_slice() {
        [_, name] => Some(name.clone()),
        _ => None,
    }
}

/// Words split on blanks, with '...' and "..." quoting (Python's `shlex.split` for the names
/// of profiles); `None` for a quote that is not closed.
fn shell_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        q if q == c => break,
                        // Within "...", a backslash escapes only `"` and itself.
                        '\\' if c == '"' => match chars.next()? {
                            e @ ('"' | '\\') => w.push(e),
                            e => w.extend(['\\', e]),
                        },
                        other => w.push(other),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(dir: &std::path::Path, vars: &[(&str, &str)]) -> Env {
        let mut e = Env::default();
        e.set("HOME", dir.to_str().unwrap());
        for (k, v) in vars {
            e.set(k, v);
        }
        e
    }

    fn write(dir: &std::path::Path, file: &str, text: &str) {
        std::fs::create_dir_all(dir.join(".aws")).unwrap();
        std::fs::write(dir.join(".aws").join(file), text).unwrap();
    }

    #[test]
    fn the_named_profile_takes_the_credentials_file_over_the_config_file() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "credentials",
            "[default]\naws_access_key_id = DEF\n\n[work]\naws_access_key_id = WORK\naws_secret_access_key=s3cr=t\n",
        );
        write(
            d.path(),
            "config",
            "# comment\n[default]\nregion = eu-west-1\n[profile work]\nregion = us-west-2\naws_access_key_id = IGNORED\ns3 =\n  addressing_style = path\nendpoint_url = http://127.0.0.1:9000\n",
        );
        let p = load(&env(d.path(), &[("AWS_PROFILE", "work")])).unwrap();
        assert_eq!(p.get("aws_access_key_id"), Some("WORK"));
        assert_eq!(p.get("aws_secret_access_key"), Some("s3cr=t"));
        assert_eq!(p.get("region"), Some("us-west-2"));
        assert_eq!(p.get("endpoint_url"), Some("http://127.0.0.1:9000"));
        assert_eq!(p.get("addressing_style"), None);
        let p = load(&env(d.path(), &[])).unwrap();
        assert_eq!(p.get("aws_access_key_id"), Some("DEF"));
        assert_eq!(p.get("region"), Some("eu-west-1"));
    }

    #[test]
    fn the_file_variables_override_the_paths_and_a_file_that_is_not_there_is_skipped() {
        let d = tempfile::tempdir().unwrap();
        let creds = d.path().join("c.ini");
        std::fs::write(&creds, "[default]\naws_access_key_id = FROMVAR\n").unwrap();
        write(
            d.path(),
            "credentials",
            "[default]\naws_access_key_id = HOME\n",
        );
        write(d.path(), "config", "[default]\nregion = eu-west-1\n");
        let p = load(&env(
            d.path(),
            &[("AWS_SHARED_CREDENTIALS_FILE", creds.to_str().unwrap())],
        ))
        .unwrap();
        assert_eq!(p.get("aws_access_key_id"), Some("FROMVAR"));
        assert_eq!(p.get("region"), Some("eu-west-1"));
        // Named files that are not there (nor a folder on their path) are no files, and the
        // files under ~/.aws are not read in their place.
        for missing in ["nope.ini", "c.ini/below"] {
            let missing = d.path().join(missing);
            let p = load(&env(
                d.path(),
                &[
                    ("AWS_CONFIG_FILE", missing.to_str().unwrap()),
                    ("AWS_SHARED_CREDENTIALS_FILE", missing.to_str().unwrap()),
                ],
            ))
            .unwrap();
            assert_eq!(p, Profile::default(), "{}", missing.display());
        }
        // `~` is the home folder, as botocore expands it.
        let p = load(&env(
            d.path(),
            &[("AWS_SHARED_CREDENTIALS_FILE", "~/c.ini")],
        ))
        .unwrap();
        assert_eq!(p.get("aws_access_key_id"), Some("FROMVAR"));
    }

    #[test]
    fn a_missing_named_profile_is_an_error_and_a_missing_default_is_not() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(load(&env(d.path(), &[])).unwrap(), Profile::default());
        let e = load(&env(d.path(), &[("AWS_PROFILE", "ghost")])).unwrap_err();
        assert!(
            e.starts_with("The config profile (ghost) could not be found: AWS_PROFILE names it"),
            "{e}"
        );
        assert!(e.contains("config (absent)"), "{e}");
        // Named, `default` must exist too (botocore's get_scoped_config).
        let e = load(&env(d.path(), &[("AWS_PROFILE", "default")])).unwrap_err();
        assert!(
            e.starts_with("The config profile (default) could not be found"),
            "{e}"
        );
        // An empty section is a profile.
        write(d.path(), "credentials", "[ghost]\n");
        assert_eq!(
            load(&env(d.path(), &[("AWS_PROFILE", "ghost")])).unwrap(),
            Profile::default()
        );
    }

    #[test]
    fn profiles_are_named_and_found_as_botocore_finds_them() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "config",
            "[default]\nregion = first\n[profile default]\nregion = second\n[profile \"my lab\"]\nregion = lab\n[profile]\nregion = no\n[other]\nregion = no\n[profile a b]\nregion = no\n[profile 'x]\nregion = no\n",
        );
        write(
            d.path(),
            "credentials",
            "[profile cred]\nregion = raw\n[env]\nregion = env\n",
        );
        let region = |vars: &[(&str, &str)]| {
            load(&env(d.path(), vars))
                .map(|p| p.get("region").map(str::to_string))
                .map_err(|e| e.split(':').next().unwrap().to_string())
        };
        assert_eq!(
            region(&[]),
            Ok(Some("second".into())),
            "the later section wins"
        );
        assert_eq!(region(&[("AWS_PROFILE", "my lab")]), Ok(Some("lab".into())));
        // The credentials file's sections are profiles by their whole name.
        assert_eq!(
            region(&[("AWS_PROFILE", "profile cred")]),
            Ok(Some("raw".into()))
        );
        for nobody in ["cred", "other", "a", "a b", "'x", "x", "profile"] {
            assert_eq!(
                region(&[("AWS_PROFILE", nobody)]),
                Err(format!("The config profile ({nobody}) could not be found")),
            );
        }
        // botocore reads AWS_DEFAULT_PROFILE first.
        assert_eq!(
            region(&[("AWS_PROFILE", "my lab"), ("AWS_DEFAULT_PROFILE", "env")]),
            Ok(Some("env".into()))
        );
    }

    #[test]
    fn a_shared_file_that_is_there_but_unreadable_or_malformed_is_an_error_naming_it() {
        let d = tempfile::tempdir().unwrap();
        let folder = d.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        let e = load(&env(
            d.path(),
            &[("AWS_CONFIG_FILE", folder.to_str().unwrap())],
        ))
        .unwrap_err();
        assert_eq!(
            e,
            format!(
                "the AWS config file {} (AWS_CONFIG_FILE) is a folder, not a file",
                folder.display()
            )
        );
        // A file that is there and cannot be opened (the tests run as root, who may open any
        // file; a socket cannot be opened by anyone, and does not block as a FIFO would).
        #[cfg(unix)]
        {
            let socket = d.path().join("socket");
            let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
            let e = load(&env(
                d.path(),
                &[("AWS_CONFIG_FILE", socket.to_str().unwrap())],
            ))
            .unwrap_err();
            assert!(
                e.starts_with(&format!(
                    "cannot read the AWS config file {} (AWS_CONFIG_FILE): ",
                    socket.display()
                )) && e.contains("os error"),
                "{e}"
            );
        }
        write(
            d.path(),
            "credentials",
            "[default]\naws_access_key_id = A\nsecret\n",
        );
        let e = load(&env(d.path(), &[])).unwrap_err();
        assert_eq!(
            e,
            format!(
                "cannot read the AWS credentials file {}, line 3: \"secret\" is neither a [section], a `key = value` nor a comment",
                d.path().join(".aws/credentials").display()
            )
        );
        std::fs::write(
            d.path().join(".aws/credentials"),
            b"[default]\n\nk = \xff\n",
        )
        .unwrap();
        let e = load(&env(d.path(), &[])).unwrap_err();
        assert!(e.ends_with("credentials, line 3: not UTF-8 text"), "{e}");
    }
}
