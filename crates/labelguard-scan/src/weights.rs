//! Class-weight suggestions from the class histogram, with the formula shown.
//!
//! * inverse frequency (scikit-learn's "balanced"): `w_c = N / (C * n_c)`;
//! * median-frequency balancing (Eigen & Fergus, ICCV 2015): `f_c = n_c / P_c` where `P_c` is
//!   the pixel count of the files in which class `c` occurs, and `w_c = median(f) / f_c`;
//! * ENet (Paszke et al., 2016): `w_c = 1 / ln(1.02 + p_c)` with `p_c = n_c / N`.
//!
//! `n_c` counts class `c`'s pixels (or samples), `N` all counted pixels of the `C` classes
//! (ignore value excluded). Classes never seen get 0: they have no targets to weight.

/// The methods and their suggestions (declared with the report that holds them).
pub use labelguard_scan_model::{Method, Suggestion};

/// Rounds to 6 significant digits, so that reports are stable and readable.
fn round(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let digits = 6 - v.abs().log10().ceil() as i32;
    let f = 10f64.powi(digits);
    (v * f).round() / f
}

/// Suggestions by every method. `counts[c]` and `file_pixels[c]` are per class 0..C, in `unit`.
pub fn suggest(counts: &[u64], file_pixels: &[u64], unit: &str) -> Vec<Suggestion> {
    let c = counts.len();
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return Vec::new();
    }
    let inverse: Vec<f64> = counts
        .iter()
        .map(|&k| {
            if k == 0 {
                0.0
            } else {
                round(n as f64 / (c as f64 * k as f64))
            }
        })
        .collect();
    let freqs: Vec<Option<f64>> = counts
        .iter()
        .zip(file_pixels)
        .map(|(&k, &p)| (k > 0 && p > 0).then(|| k as f64 / p as f64))
        .collect();
    let mut seen: Vec<f64> = freqs.iter().flatten().copied().collect();
    seen.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    let median = if seen.is_empty() {
        0.0
    } else if seen.len() % 2 == 1 {
        seen[seen.len() / 2]
    } else {
        (seen[seen.len() / 2 - 1] + seen[seen.len() / 2]) / 2.0
    };
    let median_freq: Vec<f64> = freqs
        .iter()
        .map(|f| f.map(|f| round(median / f)).unwrap_or(0.0))
        .collect();
    let enet: Vec<f64> = counts
        .iter()
        .map(|&k| {
            if k == 0 {
                0.0
            } else {
                round(1.0 / (1.02 + k as f64 / n as f64).ln())
            }
        })
        .collect();
    [
        (Method::InverseFrequency, inverse),
        (Method::MedianFrequency, median_freq),
        (Method::Enet, enet),
    ]
    .into_iter()
    .map(|(method, weights)| Suggestion {
        method,
        formula: method.formula(unit),
        weights,
    })
    .collect()
}

/// The weights file for `--write-weights`: JSON for `.json`, a Python list otherwise.
pub fn weights_file(s: &Suggestion, class_names: &[String], json: bool, dataset: &str) -> String {
    if json {
        let doc = serde_json::json!({
            "dataset": dataset,
            "method": s.method,
            "formula": s.formula,
            "num_classes": s.weights.len(),
            "classes": class_names,
            "weights": s.weights,
        });
        serde_json::to_string_pretty(&doc).expect("weights serialize") + "\n"
    } else {
        let values: Vec<String> = s.weights.iter().map(|w| format!("{w}")).collect();
        format!(
            "# Class weights suggested by labelguard scan of {dataset} ({}): {}\n# Pass them as: torch.nn.CrossEntropyLoss(weight=torch.tensor(class_weights), ignore_index=...)\nclass_weights = [{}]\n",
            s.method.as_str(),
            s.formula,
            values.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_give_the_textbook_numbers() {
        // Two classes, 3:1, each present in files of 4 pixels.
        let s = suggest(&[300, 100, 0], &[400, 400, 0], "pixels");
        let by = |m: Method| s.iter().find(|x| x.method == m).unwrap().weights.clone();
        assert_eq!(
            by(Method::InverseFrequency),
            vec![round(400.0 / 900.0), round(400.0 / 300.0), 0.0]
        );
        // f = 0.75, 0.25, median 0.5.
        assert_eq!(
            by(Method::MedianFrequency),
            vec![round(0.5 / 0.75), 2.0, 0.0]
        );
        assert_eq!(by(Method::Enet)[1], round(1.0 / (1.02f64 + 0.25).ln()));
        assert!(suggest(&[0, 0], &[0, 0], "pixels").is_empty());
    }

    #[test]
    fn files_are_json_or_python() {
        let s = &suggest(&[1, 3], &[4, 4], "pixels")[0];
        let py = weights_file(s, &[], false, "data/a");
        assert!(py.contains("class_weights = [2, 0.666667]"), "{py}");
        assert!(py.starts_with("# Class weights suggested by labelguard scan of data/a"));
        let j: serde_json::Value =
            serde_json::from_str(&weights_file(s, &["a".into(), "b".into()], true, "data/a"))
                .unwrap();
        assert_eq!(j["weights"][0], 2.0);
        assert_eq!(j["dataset"], "data/a");
        assert_eq!(j["method"], "inverse_frequency");
    }
}
