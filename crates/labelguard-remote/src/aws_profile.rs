//! The AWS CLI's shared files, read as it reads them (object_store does not read them):
//! `~/.aws/credentials` (sections `[NAME]`) and `~/.aws/config` (sections `[profile NAME]`, and
//! `[default]`), with `AWS_SHARED_CREDENTIALS_FILE` / `AWS_CONFIG_FILE` overriding the paths
//! and `AWS_PROFILE` naming the profile (`default` otherwise). Source of the formats:
//! <https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html>.

use crate::Env;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The settings of one profile: the credentials file's section over the config file's
/// (the CLI's order: the credentials file is read first).
#[derive(Debug, Default, PartialEq)]
pub struct Profile {
    pub values: BTreeMap<String, String>,
}

impl Profile {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }
}

/// The profile the environment names, from the shared files. `Err` when `AWS_PROFILE` names a
/// profile that neither file has (the AWS CLI's "The config profile (NAME) could not be found"),
/// or a named file cannot be read; the default profile may be absent (an empty profile).
pub fn load(env: &Env) -> Result<Profile, String> {
    let named = env
        .get("AWS_PROFILE")
        .or_else(|| env.get("AWS_DEFAULT_PROFILE"));
    let name = named.unwrap_or("default");
    let home = env.get("HOME").map(PathBuf::from);
    let path = |var: &str, file: &str| {
        env.get(var)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join(file)))
    };
    let mut profile = Profile::default();
    let mut found = false;
    for (var, file, section) in [
        (
            "AWS_SHARED_CREDENTIALS_FILE",
            "credentials",
            name.to_string(),
        ),
        ("AWS_CONFIG_FILE", "config", config_section(name)),
    ] {
        let Some(p) = path(var, file) else { continue };
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            // An absent default file is no profile; a file named by a variable must exist.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && env.get(var).is_none() => {
                continue
            }
            Err(e) => return Err(format!("cannot read {}: {e}", p.display())),
        };
        if let Some(values) = sections(&text).remove(&section) {
            found = true;
            for (k, v) in values {
                profile.values.entry(k).or_insert(v);
            }
        }
    }
    if named.is_some() && !found {
        return Err(format!("the AWS profile {name:?} (AWS_PROFILE) is in neither the credentials nor the config file"));
    }
    Ok(profile)
}

/// The config file names profiles `[profile NAME]`, except `[default]`.
fn config_section(name: &str) -> String {
    if name == "default" {
        name.to_string()
    } else {
        format!("profile {name}")
    }
}

/// An INI file's sections: `[name]` headers, `key = value` lines, `#`/`;` comments. Indented
/// lines belong to a nested block (`s3 =` followed by `  key = value`), which the CLI applies to
/// one service only: they are skipped.
fn sections(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
            current = Some(name.clone());
            out.entry(name).or_default();
        } else if let (Some(section), Some((k, v))) = (&current, line.split_once('=')) {
            let v = v.trim();
            if !v.is_empty() {
                out.entry(section.clone())
                    .or_default()
                    .insert(k.trim().to_ascii_lowercase(), v.to_string());
            }
        }
    }
    out
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
    fn the_file_variables_override_the_paths() {
        let d = tempfile::tempdir().unwrap();
        let creds = d.path().join("c.ini");
        std::fs::write(&creds, "[default]\naws_access_key_id = FROMVAR\n").unwrap();
        write(
            d.path(),
            "credentials",
            "[default]\naws_access_key_id = HOME\n",
        );
        let p = load(&env(
            d.path(),
            &[("AWS_SHARED_CREDENTIALS_FILE", creds.to_str().unwrap())],
        ))
        .unwrap();
        assert_eq!(p.get("aws_access_key_id"), Some("FROMVAR"));
        let missing = d.path().join("nope.ini");
        let e = load(&env(
            d.path(),
            &[("AWS_CONFIG_FILE", missing.to_str().unwrap())],
        ))
        .unwrap_err();
        assert!(e.contains("nope.ini"), "{e}");
    }

    #[test]
    fn a_missing_named_profile_is_an_error_and_a_missing_default_is_not() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(load(&env(d.path(), &[])).unwrap(), Profile::default());
        let e = load(&env(d.path(), &[("AWS_PROFILE", "ghost")])).unwrap_err();
        assert!(e.contains("\"ghost\""), "{e}");
    }
}
