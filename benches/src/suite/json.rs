//! The JSON pieces every benchmark's hand-written JSON is made of: string
//! and number literals, and a run's counters as an object.

/// A run's [`Counters`](prescient::Counters) as a JSON object, each field
/// under its [`Counters::NAMES`](prescient::Counters::NAMES) name, with a
/// leading `"runs"` field when `runs` is given; `null` for `None` (a runner
/// that is not Prescient).
pub fn counters_json(counters: Option<&prescient::Counters>, runs: Option<u64>) -> String {
    let Some(counters) = counters else {
        return "null".to_string();
    };
    let mut fields: Vec<String> = runs.map(|n| format!("\"runs\": {n}")).into_iter().collect();
    fields.extend(
        counters
            .iter()
            .map(|(name, value)| format!("\"{name}\": {value}")),
    );
    format!("{{{}}}", fields.join(", "))
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    format!("\"{}\"", prescient_graph::trace::escape_json(s))
}

/// A JSON number, or `null` for `None`, NaN and infinities.
pub fn json_number(value: Option<f64>) -> String {
    match value {
        Some(v) if v.is_finite() => {
            if v == v.trunc() && v.abs() < 1e15 {
                format!("{v:.0}")
            } else {
                format!("{v}")
            }
        }
        _ => "null".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_as_json() {
        assert_eq!(counters_json(None, Some(3)), "null");
        let c = prescient::Counters::default();
        let with_runs = counters_json(Some(&c), Some(3));
        assert!(with_runs.starts_with("{\"runs\": 3, "), "{with_runs}");
        let without = counters_json(Some(&c), None);
        assert!(without.starts_with(&format!("{{\"{}\": 0", prescient::Counters::NAMES[0])));
        // Valid JSON with one field per counter (plus `runs`).
        let v: serde_json::Value = serde_json::from_str(&with_runs).unwrap();
        assert_eq!(
            v.as_object().unwrap().len(),
            prescient::Counters::NAMES.len() + 1
        );
    }
}
