//! A dataset's own list of class colours: the `class_dict.csv` of CamVid's widely used copy
//! (Kaggle's, from the Semantic-Segmentation-Suite: a header `name,r,g,b`, then one class a
//! row). The loaders that read it (`get_label_info` and `one_hot_it` in that suite's
//! `utils/helpers.py`, and the Kaggle notebooks built on it, `pd.read_csv` then
//! `enumerate(rows)`) give each row's colour the id of its row, counted from 0 below the
//! header; a colour mask is mapped to ids with it. And the `labelmap.txt` that CVAT's and
//! Datumaro's VOC and segmentation-mask exports write beside `SegmentationClass/` (a comment
//! `# label:color_rgb:parts:actions`, then `name:r,g,b:parts:actions` a class a line), whose
//! lines are the classes in the same way ([`parse_labelmap`]). What is wrong with either file
//! is its own plain-data problem ([`ClassColoursProblem`]), which the scan words as a finding.

/// One class: its name and colour, in the file's row order (its id).
pub type ClassColour = (String, [u8; 3]);

/// What keeps a class-colour file from being read as its loader reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassColoursProblem {
    /// The header does not name the columns `name`, `r`, `g` and `b`.
    Header(String),
    /// A row (its line, 1-based) whose colour is not three numbers 0..255.
    Row { line: usize, text: String },
    /// No class at all below the header.
    Empty,
    /// Two rows with one colour (lines, 1-based): the loader's mapping gives every pixel of it
    /// the later row's id, and the earlier class has no pixel.
    Duplicate {
        colour: [u8; 3],
        first: (usize, String),
        second: (usize, String),
    },
    /// A class named on two lines (1-based), which Datumaro's reader refuses.
    DuplicateName { name: String, lines: (usize, usize) },
}

/// The most classes a class-colour file may list (a real one lists tens).
const MAX_CLASSES: usize = 65_536;

/// The classes read so far, with their lines (1-based).
#[derive(Default)]
struct Listed {
    classes: Vec<ClassColour>,
    lines: Vec<usize>,
}

impl Listed {
    /// Adds the class of `line`; a colour listed before is the file's problem.
    fn push(
        &mut self,
        line: usize,
        name: &str,
        colour: [u8; 3],
    ) -> Result<(), ClassColoursProblem> {
        if let Some(k) = self.classes.iter().position(|(_, c)| *c == colour) {
            return Err(ClassColoursProblem::Duplicate {
                colour,
                first: (self.lines[k], self.classes[k].0.clone()),
                second: (line, name.to_string()),
            });
        }
        self.classes.push((name.to_string(), colour));
        self.lines.push(line);
        Ok(())
    }

    /// The classes, or the problem that there is none.
    fn finish(self) -> Result<Vec<ClassColour>, ClassColoursProblem> {
        if self.classes.is_empty() {
            return Err(ClassColoursProblem::Empty);
        }
        Ok(self.classes)
    }
}

/// The classes of a `class_dict.csv` (`name,r,g,b`, in any column order; a UTF-8 byte order
/// mark and blank lines are skipped).
pub fn parse_class_dict(text: &str) -> Result<Vec<ClassColour>, ClassColoursProblem> {
    let mut lines = text
        .trim_start_matches('\u{feff}')
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or(ClassColoursProblem::Empty)?;
    let cells: Vec<String> = header
        .split(',')
        .map(|c| c.trim().trim_matches('"').to_ascii_lowercase())
        .collect();
    let col = |name: &str| cells.iter().position(|c| c == name);
    let (Some(n), Some(r), Some(g), Some(b)) = (col("name"), col("r"), col("g"), col("b")) else {
        return Err(ClassColoursProblem::Header(header.trim().to_string()));
    };
    let mut out = Listed::default();
    for (i, line) in lines.take(MAX_CLASSES) {
        let cells: Vec<&str> = line
            .split(',')
            .map(|c| c.trim().trim_matches('"'))
            .collect();
        let byte = |k: usize| cells.get(k).and_then(|c| c.parse::<u8>().ok());
        let (Some(name), Some(r), Some(g), Some(b)) = (cells.get(n), byte(r), byte(g), byte(b))
        else {
            return Err(ClassColoursProblem::Row {
                line: i + 1,
                text: line.trim().to_string(),
            });
        };
        out.push(i + 1, name, [r, g, b])?;
    }
    out.finish()
}

/// The classes of a `labelmap.txt`. As Datumaro's VOC reader (`parse_label_map` in
/// `datumaro/plugins/voc_format/format.py`) reads it: each line stripped, blank lines and lines
/// starting with `#` skipped, the rest split at `:` into name, colour (`r,g,b`), parts and
/// actions; a name given twice is refused, and the classes are numbered in line order. A
/// class without a colour (`name:::`, which Datumaro accepts and then paints with colours of
/// its own) cannot map a colour mask here, so it is a row problem too.
pub fn parse_labelmap(text: &str) -> Result<Vec<ClassColour>, ClassColoursProblem> {
    let mut out = Listed::default();
    let lines = text.trim_start_matches('\u{feff}').lines().enumerate();
    for (i, line) in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if out.classes.len() == MAX_CLASSES {
            break;
        }
        let row = || ClassColoursProblem::Row {
            line: i + 1,
            text: line.to_string(),
        };
        let mut fields = line.split(':');
        let name = fields.next().unwrap_or_default();
        let colour: Vec<Option<u8>> = fields
            .next()
            .unwrap_or_default()
            .split(',')
            .map(|c| c.trim().parse::<u8>().ok())
            .collect();
        let [Some(r), Some(g), Some(b)] = colour[..] else {
            return Err(row());
        };
        if name.is_empty() {
            return Err(row());
        }
        if let Some(k) = out.classes.iter().position(|(n, _)| n == name) {
            return Err(ClassColoursProblem::DuplicateName {
                name: name.to_string(),
                lines: (out.lines[k], i + 1),
            });
        }
        out.push(i + 1, name, [r, g, b])?;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_classes_in_order() {
        let text = "\u{feff}name,r,g,b\nAnimal,64,128,64\n\nArchway,192,0,128\n";
        assert_eq!(
            parse_class_dict(text).unwrap(),
            [
                ("Animal".to_string(), [64, 128, 64]),
                ("Archway".to_string(), [192, 0, 128])
            ]
        );
        // Columns in another order.
        let text = "r,g,b,name\n1,2,3,x\n";
        assert_eq!(
            parse_class_dict(text).unwrap(),
            [("x".to_string(), [1, 2, 3])]
        );
    }

    #[test]
    fn what_the_loader_cannot_read_is_named() {
        assert_eq!(
            parse_class_dict("class,red,green,blue\n"),
            Err(ClassColoursProblem::Header("class,red,green,blue".into()))
        );
        assert_eq!(
            parse_class_dict("name,r,g,b\nSky,128,300,128\n"),
            Err(ClassColoursProblem::Row {
                line: 2,
                text: "Sky,128,300,128".into()
            })
        );
        assert_eq!(
            parse_class_dict("name,r,g,b\n"),
            Err(ClassColoursProblem::Empty)
        );
        assert_eq!(
            parse_class_dict("name,r,g,b\nA,1,2,3\nB,4,5,6\nC,1,2,3\n"),
            Err(ClassColoursProblem::Duplicate {
                colour: [1, 2, 3],
                first: (2, "A".into()),
                second: (4, "C".into())
            })
        );
    }

    /// What CVAT writes (`# label:color_rgb:parts:actions`, then `name:r,g,b::`).
    const LABELMAP: &str = "# label:color_rgb:parts:actions\nbackground:0,0,0::\ncar:250,50,83::\nperson:51,221,255:head,hand:walking\n";

    #[test]
    fn labelmap_lines_are_classes_in_order() {
        assert_eq!(
            parse_labelmap(LABELMAP).unwrap(),
            [
                ("background".to_string(), [0, 0, 0]),
                ("car".to_string(), [250, 50, 83]),
                ("person".to_string(), [51, 221, 255])
            ]
        );
        // Blank lines, spaces around a line and a missing parts/actions tail are accepted.
        assert_eq!(
            parse_labelmap("\n  sky:1, 2 ,3  \n\n").unwrap(),
            [("sky".to_string(), [1, 2, 3])]
        );
    }

    #[test]
    fn what_datumaro_refuses_or_cannot_map_is_named() {
        let row = |line: usize, text: &str| {
            Err(ClassColoursProblem::Row {
                line,
                text: text.into(),
            })
        };
        assert_eq!(parse_labelmap("a:1,2::\n"), row(1, "a:1,2::"));
        assert_eq!(parse_labelmap("#\na:::\n"), row(2, "a:::"));
        assert_eq!(parse_labelmap("a:1,2,256::"), row(1, "a:1,2,256::"));
        assert_eq!(parse_labelmap(":1,2,3::"), row(1, ":1,2,3::"));
        assert_eq!(parse_labelmap("# only\n"), Err(ClassColoursProblem::Empty));
        assert_eq!(
            parse_labelmap("a:1,2,3::\nb:4,5,6::\na:7,8,9::\n"),
            Err(ClassColoursProblem::DuplicateName {
                name: "a".into(),
                lines: (1, 3)
            })
        );
        assert_eq!(
            parse_labelmap("a:1,2,3::\nb:1,2,3::\n"),
            Err(ClassColoursProblem::Duplicate {
                colour: [1, 2, 3],
                first: (1, "a".into()),
                second: (2, "b".into())
            })
        );
    }

    /// Every truncation and every one-byte change of a real labelmap is read or refused with a
    /// problem: never a panic, and a class is only ever one the text holds.
    #[test]
    fn every_truncation_and_flipped_byte_is_read_or_refused() {
        let bytes = LABELMAP.as_bytes();
        let check = |b: &[u8]| {
            let text = String::from_utf8_lossy(b);
            if let Ok(classes) = parse_labelmap(&text) {
                assert!(!classes.is_empty());
                for (name, _) in classes {
                    assert!(text.contains(&name), "{name:?} not in {text:?}");
                }
            }
        };
        for n in 0..=bytes.len() {
            check(&bytes[..n]);
        }
        for i in 0..bytes.len() {
            for v in [0u8, b':', b',', b'#', b'\n', b'9', 0xff, bytes[i] ^ 0x20] {
                let mut b = bytes.to_vec();
                b[i] = v;
                check(&b);
            }
        }
        // A truncation inside the last line's colour is refused, naming the line.
        let cut = LABELMAP.find("51,221").unwrap() + 3;
        assert!(matches!(
            parse_labelmap(&LABELMAP[..cut]),
            Err(ClassColoursProblem::Row { line: 4, .. })
        ));
    }
}
