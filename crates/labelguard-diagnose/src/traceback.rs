//! Traceback lines of CPython and IPython/Jupyter (7 and 8).

/// What one line inside a traceback is.
#[derive(Debug, PartialEq, Eq)]
pub enum TbLine<'a> {
    /// A frame header: `File "x.py", line 3, in f`, `File ~/x.py:3, in f(a)`, `Cell In[5], line 3`,
    /// or IPython 7's `/path/x.py in f(a)`.
    Frame {
        file: &'a str,
        line: Option<u64>,
        function: &'a str,
    },
    /// IPython's arrow line with the frame's source: `----> 3 loss = f(x)`.
    Arrow { line: Option<u64>, code: &'a str },
    /// Anything else (a source line, a `^^^^` marker, an IPython context line).
    Other,
}

fn number(s: &str) -> (Option<u64>, &str) {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    (s[..n].parse().ok(), &s[n..])
}

fn function_name(s: &str) -> &str {
    s.split('(').next().unwrap_or("").trim()
}

/// Classifies a traceback line `t` (leading whitespace removed). `ipython` allows IPython 7's
/// frame headers, which are only recognisable inside an IPython traceback.
pub fn classify(t: &str, ipython: bool) -> TbLine<'_> {
    if let Some(rest) = t.strip_prefix("File \"") {
        if let Some(q) = rest.find('"') {
            let file = &rest[..q];
            let rest = &rest[q + 1..];
            let (line, rest) = match rest.strip_prefix(", line ") {
                Some(r) => number(r),
                None => (None, rest),
            };
            let function = rest.strip_prefix(", in ").map_or("", str::trim);
            return TbLine::Frame {
                file,
                line,
                function,
            };
        }
    }
    if let Some(rest) = t.strip_prefix("File ") {
        // IPython 8: `File /path/x.py:3029, in cross_entropy(input, ...)`.
        let (head, function) = match rest.find(", in ") {
            Some(i) => (&rest[..i], function_name(&rest[i + 5..])),
            None => (rest.trim_end(), ""),
        };
        if let Some((file, n)) = head.rsplit_once(':') {
            if let (Some(line), "") = number(n) {
                return TbLine::Frame {
                    file,
                    line: Some(line),
                    function,
                };
            }
        }
    }
    if t.starts_with("Cell In[") {
        if let Some(close) = t.find(']') {
            let rest = &t[close + 1..];
            let (line, rest) = match rest.strip_prefix(", line ") {
                Some(r) => number(r),
                None => (None, rest),
            };
            let function = rest.strip_prefix(", in ").map_or("<cell>", function_name);
            return TbLine::Frame {
                file: &t[..close + 1],
                line,
                function,
            };
        }
    }
    let dashes = t.bytes().take_while(|&c| c == b'-').count();
    if t[dashes..].starts_with('>') && (dashes > 0 || t.len() > 1) {
        let (line, code) = number(t[dashes + 1..].trim_start());
        return TbLine::Arrow {
            line,
            code: code.trim(),
        };
    }
    if ipython && !t.contains("Assertion") {
        // IPython 7: `<ipython-input-3-0f1c> in <module>()`, `/usr/lib/.../functional.py in f(a)`.
        let pathlike = t.starts_with('/')
            || t.starts_with('~')
            || t.starts_with("<ipython-input")
            || (t.len() > 2 && t.as_bytes()[1] == b':' && t.as_bytes()[2] == b'\\');
        if pathlike {
            if let Some(i) = t.find(" in ") {
                let file = &t[..i];
                if !file.contains(' ') || file.starts_with("<ipython-input") {
                    return TbLine::Frame {
                        file,
                        line: None,
                        function: function_name(&t[i + 4..]),
                    };
                }
            }
        }
    }
    TbLine::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpython_frames() {
        assert_eq!(
            classify(r#"File "/home/u/train.py", line 87, in train_step"#, false),
            TbLine::Frame {
                file: "/home/u/train.py",
                line: Some(87),
                function: "train_step"
            }
        );
        assert_eq!(
            classify(r#"File "<string>", line 1, in <module>"#, false),
            TbLine::Frame {
                file: "<string>",
                line: Some(1),
                function: "<module>"
            }
        );
        assert_eq!(classify("loss = criterion(out, y)", false), TbLine::Other);
        assert_eq!(classify("^^^^^^^^^^^^", false), TbLine::Other);
    }

    #[test]
    fn ipython_frames() {
        assert_eq!(
            classify("File /opt/conda/lib/python3.10/site-packages/torch/nn/functional.py:3029, in cross_entropy(input, target, weight)", false),
            TbLine::Frame {
                file: "/opt/conda/lib/python3.10/site-packages/torch/nn/functional.py",
                line: Some(3029),
                function: "cross_entropy"
            }
        );
        assert_eq!(
            classify("Cell In[7], line 12", false),
            TbLine::Frame {
                file: "Cell In[7]",
                line: Some(12),
                function: "<cell>"
            }
        );
        assert_eq!(
            classify("----> 12 loss = F.cross_entropy(out, y)", false),
            TbLine::Arrow {
                line: Some(12),
                code: "loss = F.cross_entropy(out, y)"
            }
        );
        assert_eq!(
            classify("<ipython-input-5-2c3d> in <module>()", true),
            TbLine::Frame {
                file: "<ipython-input-5-2c3d>",
                line: None,
                function: "<module>"
            }
        );
        assert_eq!(
            classify("/usr/local/lib/python3.7/dist-packages/torch/nn/functional.py in nll_loss(input, target)", true),
            TbLine::Frame {
                file: "/usr/local/lib/python3.7/dist-packages/torch/nn/functional.py",
                line: None,
                function: "nll_loss"
            }
        );
        assert_eq!(classify("/usr/lib/x.py in f()", false), TbLine::Other);
        assert_eq!(classify("-", false), TbLine::Other);
        assert_eq!(classify(">", false), TbLine::Other);
    }
}
