//! Line-level text helpers: colour codes, rank and logger prefixes, evidence shortening,
//! exception lines, traceback frames and the line before a line. The assertion sites a line
//! holds are in [`crate::assertion`]. Every function is linear in the line and total on
//! arbitrary input.

use memchr::memmem::Finder;
use std::sync::LazyLock;

/// Substring searchers built once: the parser looks for these in every line it reads closely.
macro_rules! finders {
    ($($name:ident = $needle:expr;)*) => {
        $(pub static $name: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new($needle));)*
    };
}
pub(crate) use finders;

finders! {
    TRACEBACK = "Traceback (most recent call last)";
    DSA_FOUND = "CUDA device-side assertion failures were found";
    LINK = "](";
}

/// Whether `hay` contains the finder's needle.
pub fn has(f: &Finder, hay: &str) -> bool {
    f.find(hay.as_bytes()).is_some()
}

/// The longest evidence text kept, in bytes.
pub const EVIDENCE_CHARS: usize = 300;

/// `raw` without ANSI escape sequences and control characters (tabs are kept), invalid UTF-8
/// decoded lossily: `raw` itself when it holds none of them (most lines), else a copy made in
/// `out` (`bytes` is scratch).
pub fn clean<'a>(raw: &'a [u8], bytes: &mut Vec<u8>, out: &'a mut String) -> &'a str {
    out.clear();
    if !has_control(raw) {
        match std::str::from_utf8(raw) {
            Ok(s) => return s,
            Err(_) => out.push_str(&String::from_utf8_lossy(raw)),
        }
        return out;
    }
    bytes.clear();
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == 0x1b {
            i += 1;
            match raw.get(i) {
                // CSI: ESC [ parameters... final byte in 0x40..=0x7e.
                Some(b'[') => {
                    i += 1;
                    while i < raw.len() && !(0x40..=0x7e).contains(&raw[i]) {
                        i += 1;
                    }
                    i += 1;
                }
                // OSC: ESC ] ... BEL or ESC \.
                Some(b']') => {
                    i += 1;
                    while i < raw.len() && raw[i] != 0x07 && raw[i] != 0x1b {
                        i += 1;
                    }
                    i += if raw.get(i) == Some(&0x1b) { 2 } else { 1 };
                }
                Some(_) => i += 1,
                None => {}
            }
            continue;
        }
        if b >= 0x20 || b == b'\t' {
            bytes.push(b);
        }
        i += 1;
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => out.push_str(s),
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
    out
}

/// Whether `raw` holds a control character other than a tab (ESC included). Written without an
/// early exit so that it runs over whole words of the line at once.
fn has_control(raw: &[u8]) -> bool {
    raw.iter()
        .fold(false, |any, &b| any | ((b < 0x20) & (b != b'\t')))
}

/// Splits a per-process prefix off a line: `[rank3]:`, `[default0]:`, `[1,0]<stderr>:` (mpirun)
/// or `3: ` (srun -l). Returns the prefix (the key of that process's traceback) and the rest,
/// without the header of PyTorch's logger (see [`strip_log_header`]).
pub fn split_prefix(s: &str) -> (&str, &str) {
    let (prefix, rest) = split_one_prefix(s);
    // torchrun's `--tee` prefix before torch.distributed's own: `[default1]:[rank1]: ...`.
    match split_one_prefix(rest) {
        (inner, rest) if !prefix.is_empty() && inner.starts_with('[') => (
            s[..s.len() - rest.len()].trim_end_matches([':', ' ']),
            strip_log_header(rest),
        ),
        _ => (prefix, strip_log_header(rest)),
    }
}

/// The message of a line that PyTorch's logger (torch._logging, torch.distributed.elastic)
/// wrote with its glog-style header, `E0305 20:23:38.890000 755 site-packages/torch/_inductor/
/// runtime/triton_heuristics.py:533] [0/0] ` (level, date, time, pid, file:line, and dynamo's
/// compile id): the logger repeats the header on every line of a multi-line message, so a
/// traceback it logs (inductor's `Triton compilation failed`) reads as one only without it.
/// Exactly one space after the header is removed, so a frame's indentation stays.
pub fn strip_log_header(s: &str) -> &str {
    let b = s.as_bytes();
    let digits = |from: usize| {
        b[from.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    // `E0305 20:23:38.890000 755 `: a level letter, MMDD, a time, a pid.
    let glog = b.len() > 24
        && b"DIWECF".contains(&b[0])
        && digits(1) == 4
        && b[5] == b' '
        && b[6..14].iter().enumerate().all(|(i, c)| {
            if i % 3 == 2 {
                *c == b':'
            } else {
                c.is_ascii_digit()
            }
        });
    if !glog {
        return s;
    }
    let micros = digits(15);
    let pid_at = 15 + micros + 1;
    let pid = digits(pid_at);
    if micros == 0 || b[14] != b'.' || pid == 0 || b.get(pid_at - 1) != Some(&b' ') {
        return s;
    }
    // `<file>:<line>] `, the file holding no space.
    let rest = &s[pid_at + pid..];
    let Some(rest) = rest.strip_prefix(' ') else {
        return s;
    };
    let Some(close) = rest.find("] ").filter(|&c| !rest[..c].contains(' ')) else {
        return s;
    };
    let message = &rest[close + 2..];
    // dynamo's compile id: `[0/0] `, `[2/1_1] `, compiled autograd's `[!0/0/0] `.
    match message.strip_prefix('[').and_then(|m| m.split_once("] ")) {
        Some((id, after))
            if !id.is_empty()
                && id
                    .bytes()
                    .all(|c| c.is_ascii_digit() || b"/_!".contains(&c)) =>
        {
            after
        }
        _ => message,
    }
}

fn split_one_prefix(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    if b.first() == Some(&b'[') {
        let head = &b[..b.len().min(48)];
        if let Some(close) = head.iter().position(|&c| c == b']') {
            let inner = &b[1..close];
            let plausible = inner.iter().any(u8::is_ascii_digit)
                && inner
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || b"_-, ".contains(c));
            if plausible {
                let mut rest = &s[close + 1..];
                for tag in ["<stderr>", "<stdout>"] {
                    if let Some(r) = rest.strip_prefix(tag) {
                        rest = r;
                    }
                }
                if let Some(r) = rest.strip_prefix(':') {
                    return (&s[..close + 1], r.strip_prefix(' ').unwrap_or(r));
                }
            }
        }
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if (1..=5).contains(&digits) && s[digits..].starts_with(": ") {
        return (&s[..digits], &s[digits + 2..]);
    }
    ("", s)
}

/// Shortens a line for evidence, on a character boundary.
pub fn shorten(s: &str) -> String {
    match shortened(s) {
        (kept, false) => kept.to_string(),
        (kept, true) => format!("{kept}…"),
    }
}

/// What [`shorten`] keeps of `s`, and whether it cut it (then an ellipsis follows), without
/// building the string.
pub fn shortened(s: &str) -> (&str, bool) {
    let s = s.trim();
    if s.len() <= EVIDENCE_CHARS {
        return (s, false);
    }
    let mut end = EVIDENCE_CHARS;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], true)
}

/// Whether `short` is `shorten(s)`, given `shortened(s)`, without allocating: the hot path of
/// repeated messages.
pub fn is_shortened(short: &str, (kept, cut): (&str, bool)) -> bool {
    if cut {
        short.strip_suffix('…') == Some(kept)
    } else {
        short == kept
    }
}

/// A Python exception line: `torch.AcceleratorError: CUDA error: ...`, `KeyboardInterrupt`.
/// Returns the exception's name and message.
pub fn exception_line(t: &str) -> Option<(&str, &str)> {
    let (name, msg) = match t.find(':') {
        Some(i) => (&t[..i], t[i + 1..].trim()),
        None => (t.trim_end(), ""),
    };
    let valid = !name.is_empty()
        && name.len() <= 120
        && name
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.');
    let last = name.rsplit('.').next().unwrap_or(name);
    let looks = [
        "Error",
        "Exception",
        "Interrupt",
        "Exit",
        "Failure",
        "Warning",
    ]
    .iter()
    .any(|s| last.ends_with(s))
        || last.contains("Error");
    (valid && looks).then_some((name, msg))
}

/// Removes the markdown links that VS Code and JupyterLab put into tracebacks:
/// `[line 13](vscode-notebook-cell:?execution_count=11&line=13)` becomes `line 13`.
pub fn unlink(t: &str) -> String {
    // One pass: each `](` is found once, and the `[` before it is searched only back to where
    // the previous link ended.
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(mid) = rest.find("](") {
        let target = &rest[mid + 2..];
        let Some(end) = target.find(')') else {
            break;
        };
        match rest[..mid].rfind('[') {
            Some(open) => {
                out.push_str(&rest[..open]);
                out.push_str(&rest[open + 1..mid]);
                rest = &target[end + 1..];
            }
            None => {
                out.push_str(&rest[..mid + 2]);
                rest = target;
            }
        }
    }
    out.push_str(rest);
    out
}

/// How far back the line before a line is looked for: a longer line is not a source line, and
/// the bound keeps the answer the same however the stream was cut into chunks.
pub const PREVIOUS_LINE_WINDOW: usize = 4096 + 2;

/// The line that ends with the last terminator of `before` (`\r\n` counts as one), if it lies
/// within the last [`PREVIOUS_LINE_WINDOW`] bytes. `from_start`: `before` begins at the start
/// of the stream, so a line without a terminator in front of it is the stream's first.
pub fn previous_line(before: &[u8], from_start: bool) -> Option<&[u8]> {
    let cut = before.len().saturating_sub(PREVIOUS_LINE_WINDOW);
    let w = &before[cut..];
    let mut end = w.len().checked_sub(1)?;
    if w[end] == b'\n' && end > 0 && w[end - 1] == b'\r' {
        end -= 1; // CRLF
    }
    match memchr::memrchr2(b'\n', b'\r', &w[..end]) {
        Some(i) => Some(&w[i + 1..end]),
        None if from_start && cut == 0 => Some(&w[..end]),
        None => None,
    }
}

/// Whether [`previous_line`] of `before` is final: `before` holds the whole window, begins at
/// the stream's start, or holds a terminator in front of the line.
pub fn previous_line_is_final(before: &[u8], from_start: bool) -> bool {
    from_start || before.len() >= PREVIOUS_LINE_WINDOW || previous_line(before, false).is_some()
}

/// Whether a line opens a traceback frame: `File "x.py", line 3, in f` (CPython), `File
/// /x.py:3, in f(a)` or `Cell In[5], line 3` (IPython 8).
pub fn starts_frame(t: &str) -> bool {
    (t.starts_with("File \"") && t.contains("\", line "))
        || ((t.starts_with("File /") || t.starts_with("File ~") || t.starts_with("File ["))
            && t.contains(", in "))
        || t.starts_with("Cell In[")
}

/// The code typed at an interactive prompt: `>>> f(x)`, `In [4]: f(x)`.
pub fn repl_input(t: &str) -> Option<&str> {
    if let Some(code) = t.strip_prefix(">>> ") {
        return Some(code.trim());
    }
    let rest = t.strip_prefix("In [")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let code = rest[digits..].strip_prefix("]:")?;
    (digits > 0).then(|| code.trim())
}

/// Whether a line outside a traceback looks like a source line (a call or an assignment), not
/// a log message.
pub fn looks_like_code(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 400
        && s.contains('(')
        && exception_line(s).is_none()
        && !s.contains("Traceback")
        && !s.starts_with('[')
        && !s.contains(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_codes_and_control_characters_go() {
        let (mut b, mut s) = (Vec::new(), String::new());
        let c = clean(
            b"\x1b[0;31mRuntimeError\x1b[0m: CUDA error\x1b]0;title\x07!\x08\xff",
            &mut b,
            &mut s,
        );
        assert_eq!(c, "RuntimeError: CUDA error!\u{fffd}");
        assert_eq!(clean(b"\x1b[", &mut b, &mut s), "");
        assert_eq!(clean(b"a\tb \xff", &mut b, &mut s), "a\tb \u{fffd}");
        assert_eq!(clean(b"plain\ttext", &mut b, &mut s), "plain\ttext");
    }

    #[test]
    fn rank_prefixes_split() {
        assert_eq!(
            split_prefix("[rank3]: RuntimeError: x"),
            ("[rank3]", "RuntimeError: x")
        );
        assert_eq!(
            split_prefix("[rank3]:  File \"a.py\""),
            ("[rank3]", " File \"a.py\"")
        );
        assert_eq!(
            split_prefix("[default0]:Traceback"),
            ("[default0]", "Traceback")
        );
        assert_eq!(split_prefix("[1,0]<stderr>:x"), ("[1,0]", "x"));
        assert_eq!(
            split_prefix("[default1]:[rank1]: Traceback"),
            ("[default1]:[rank1]", "Traceback")
        );
        assert_eq!(split_prefix("[rank1]: 12: x"), ("[rank1]", "12: x"));
        assert_eq!(split_prefix("12: x"), ("12", "x"));
        assert_eq!(split_prefix("[W reducer.cpp] x"), ("", "[W reducer.cpp] x"));
        assert_eq!(split_prefix("[00:51<00:01]: y"), ("", "[00:51<00:01]: y"));
    }

    #[test]
    fn log_headers_are_stripped_with_the_indentation_kept() {
        let e = "E0305 20:23:38.890000 755 site-packages/torch/_inductor/runtime/triton_heuristics.py:533] [0/0]   File \"x.py\", line 3, in f";
        assert_eq!(split_prefix(e), ("", "  File \"x.py\", line 3, in f"));
        let w = "W1126 10:02:41.517000 3312 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 3313 closing signal SIGTERM";
        assert_eq!(
            strip_log_header(w),
            "Sending process 3313 closing signal SIGTERM"
        );
        assert_eq!(
            split_prefix("[rank1]:E1126 10:02:41.5 7 a.py:1] [2/1_1] Triton compilation failed: k"),
            ("[rank1]", "Triton compilation failed: k")
        );
        assert_eq!(
            strip_log_header("F1126 10:02:41.5 7 a.py:1] [!0/0/0] Traceback"),
            "Traceback"
        );
        for plain in [
            "E0305 is not a header",
            "E0305 20:23:38.890000 755 a b.py:1] x",
            "E0305 20:23:38 755 a.py:1] x",
            "Epoch 1234 12:34:56.1 9 x.py:1] y",
            "E0305 20:23:38.890000 755 a.py:1]",
        ] {
            assert_eq!(strip_log_header(plain), plain, "{plain}");
        }
        for s in [
            "E0305 20:23:38.",
            "E0305 20:23:38.890000 7",
            "Ä0305 20:23:38.890000 755 a.py:1] x",
        ] {
            strip_log_header(s); // total on short and odd input
        }
    }

    #[test]
    fn the_line_before() {
        assert_eq!(previous_line(b"a\nbc\n", false), Some(&b"bc"[..]));
        assert_eq!(previous_line(b"bc\n", true), Some(&b"bc"[..]));
        assert_eq!(previous_line(b"bc\n", false), None);
        assert_eq!(previous_line(b"", true), None);
        assert_eq!(previous_line(b"a\nx\r\n", false), Some(&b"x"[..]));
        assert_eq!(previous_line(b"a\rb\n", false), Some(&b"b"[..]));
        let long = [b"\n".as_slice(), &[b'x'; PREVIOUS_LINE_WINDOW], b"\n"].concat();
        assert_eq!(
            previous_line(&long, true),
            None,
            "a line longer than the window"
        );
    }

    #[test]
    fn notebook_links_go() {
        assert_eq!(
            unlink("Cell In[11], [line 13](vscode-notebook-cell:?execution_count=11&line=13)"),
            "Cell In[11], line 13"
        );
        assert_eq!(
            unlink("---> [13](vscode-notebook-cell:?x=1) acc = f(y[0])"),
            "---> 13 acc = f(y[0])"
        );
        assert_eq!(unlink("x[0] = [a](b"), "x[0] = [a](b");
        assert_eq!(unlink("Cell In[3]"), "Cell In[3]");
    }

    #[test]
    fn frames_prompts_and_code_lines() {
        assert!(starts_frame(r#"File "/a/b.py", line 3, in f"#));
        assert!(starts_frame(
            "File ~/x/sparse.py:190, in Embedding.forward(self, input)"
        ));
        assert!(!starts_frame("File not found"));
        assert_eq!(repl_input(">>> F.one_hot(a)"), Some("F.one_hot(a)"));
        assert_eq!(
            repl_input("In [4]: torch.multinomial(w, 2)"),
            Some("torch.multinomial(w, 2)")
        );
        assert_eq!(repl_input("In [x]: y"), None);
        assert!(looks_like_code("return x.scatter_(1, i, 1.0)"));
        assert!(!looks_like_code("2024-01-01 INFO: epoch (3)"));
        assert!(!looks_like_code("RuntimeError: CUDA error (59)"));
    }

    #[test]
    fn exception_lines() {
        assert_eq!(
            exception_line("torch.AcceleratorError: CUDA error: device-side assert triggered"),
            Some((
                "torch.AcceleratorError",
                "CUDA error: device-side assert triggered"
            ))
        );
        assert_eq!(
            exception_line("KeyboardInterrupt"),
            Some(("KeyboardInterrupt", ""))
        );
        assert_eq!(exception_line("Epoch 1: loss=0.3"), None);
        assert_eq!(
            exception_line("During handling of the above exception"),
            None
        );
    }
}
