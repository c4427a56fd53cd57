//! The class-weight file reader (`--class-weights`, a config's `class_weights`): numbers in
//! any of the forms people save them in.

use super::array::array_read_problem;
use super::magic::PNG_MAGIC;
use crate::checks::lg602_corrupt_file as lg602;
use crate::checks::lg603_empty_file as lg603;
use crate::source::Source;
use labelguard_core::Finding;

/// Numbers from a weights file: JSON or Python list (`[1.0, nan, ...]`), whitespace or comma
/// separated text, or a 1-D `.npy`.
pub fn read_weights(source: &Source) -> Result<Vec<f64>, Finding> {
    let mut buf = Vec::new();
    source.read_all(64 << 20, &mut buf)?;
    if buf.starts_with(b"\x93NUMPY") || buf.starts_with(b"PK\x03\x04") {
        let name = std::path::Path::new("class-weights.npy");
        let t =
            labelguard_io::read_tensors_from_bytes(name, buf, &labelguard_io::Limits::default())
                .map_err(array_read_problem)?;
        let first = t.first().ok_or_else(lg603::weights_without_arrays)?;
        return Ok(first.tensor.view().to_f64_vec());
    }
    if buf.starts_with(PNG_MAGIC) {
        return Err(lg602::weights_are_an_image());
    }
    let text = String::from_utf8_lossy(&buf);
    let body = match (text.find('['), text.rfind(']')) {
        (Some(a), Some(b)) if a < b => &text[a + 1..b],
        _ => &text[..],
    };
    let mut out = Vec::new();
    for tok in body
        .split(|c: char| c == ',' || c.is_whitespace() || c == '[' || c == ']')
        .filter(|t| !t.is_empty())
    {
        let t = tok.trim_matches(|c| c == '"' || c == '\'');
        let v = match t.to_ascii_lowercase().as_str() {
            "nan" | "float('nan')" | "null" | "none" => f64::NAN,
            "inf" | "infinity" => f64::INFINITY,
            "-inf" | "-infinity" => f64::NEG_INFINITY,
            _ => t
                .parse::<f64>()
                .map_err(|_| lg602::weight_not_a_number(t))?,
        };
        out.push(v);
    }
    if out.is_empty() {
        return Err(lg603::weights_without_values());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_files_parse_in_every_common_form() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.json");
        std::fs::write(&p, "[1.0, 2.5, NaN, -1]").unwrap();
        let w = read_weights(&Source::File(p.clone())).unwrap();
        assert_eq!(w.len(), 4);
        assert!(w[2].is_nan());
        std::fs::write(&p, "weights = torch.tensor([0.5, 1, inf])\n").unwrap();
        assert_eq!(
            read_weights(&Source::File(p.clone())).unwrap()[2],
            f64::INFINITY
        );
        std::fs::write(&p, "1 2\n3\n").unwrap();
        assert_eq!(
            read_weights(&Source::File(p.clone())).unwrap(),
            vec![1.0, 2.0, 3.0]
        );
        std::fs::write(&p, "[1, two]").unwrap();
        assert_eq!(
            read_weights(&Source::File(p.clone())).unwrap_err().code,
            "LG602"
        );
    }
}
