//! A dataset's own list of class colours: the `class_dict.csv` of CamVid's widely used copy
//! (Kaggle's, from the Semantic-Segmentation-Suite: a header `name,r,g,b`, then one class a
//! row). The loaders that read it (`get_label_info` and `one_hot_it` in that suite's
//! `utils/helpers.py`, and the Kaggle notebooks built on it, `pd.read_csv` then
//! `enumerate(rows)`) give each row's colour the id of its row, counted from 0 below the
//! header; a colour mask is mapped to ids with it. What is wrong with the file is its own
//! plain-data problem ([`ClassColoursProblem`]), which the scan words as a finding.

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
}

/// The most classes a class-colour file may list (a real one lists tens).
const MAX_CLASSES: usize = 65_536;

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
    let mut out: Vec<ClassColour> = Vec::new();
    let mut lines_of: Vec<usize> = Vec::new();
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
        let colour = [r, g, b];
        if let Some(k) = out.iter().position(|(_, c)| *c == colour) {
            return Err(ClassColoursProblem::Duplicate {
                colour,
                first: (lines_of[k], out[k].0.clone()),
                second: (i + 1, name.to_string()),
            });
        }
        out.push((name.to_string(), colour));
        lines_of.push(i + 1);
    }
    if out.is_empty() {
        return Err(ClassColoursProblem::Empty);
    }
    Ok(out)
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
}
