//! The matrix as `sift eval` prints it for several candidates: a table of
//! fields × candidates, then each pair's difference; or JSON.

use serde_json::{Value, json};

use super::compare::{CandidateScores, Matrix, PairDifference, RunFigures};
use super::score::FieldScore;

fn cell(score: &FieldScore) -> String {
    match score.accuracy() {
        Some(a) => format!("{}/{} {:.1}%", score.correct, score.scored, a * 100.0),
        None => "-".into(),
    }
}

fn millis(ms: Option<i64>) -> String {
    ms.map_or_else(|| "-".into(), |ms| format!("{ms} ms"))
}

fn failures(figures: &RunFigures) -> String {
    if figures.failures.is_empty() {
        return "none".into();
    }
    figures
        .failures
        .iter()
        .map(|(category, n)| format!("{category} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The table: a row per field and `overall` (`correct/scored PCT%` per
/// candidate), a blank line, the latency's median and 95th percentile per
/// document, the tokens in and out, and the failures by category; then a
/// blank line and one line per pair of candidates.
pub fn format_matrix(matrix: &Matrix) -> String {
    let mut rows: Vec<Vec<String>> = vec![
        std::iter::once("field".to_owned())
            .chain(matrix.candidates.iter().map(|c| c.label.clone()))
            .collect(),
    ];
    let per = |name: &str, f: &dyn Fn(&CandidateScores) -> String| -> Vec<String> {
        std::iter::once(name.to_owned())
            .chain(matrix.candidates.iter().map(f))
            .collect()
    };
    for (i, field) in matrix.fields.iter().enumerate() {
        rows.push(per(field, &|c| cell(&c.report.fields[i])));
    }
    rows.push(per("overall", &|c| cell(&c.report.overall)));
    let table_end = rows.len();
    rows.push(per("latency median", &|c| {
        millis(c.figures.latency_median_ms)
    }));
    rows.push(per("latency p95", &|c| millis(c.figures.latency_p95_ms)));
    rows.push(per("tokens in/out", &|c| {
        format!("{}/{}", c.figures.input_tokens, c.figures.output_tokens)
    }));
    rows.push(per("failures", &|c| failures(&c.figures)));
    if matrix
        .candidates
        .iter()
        .any(|c| c.figures.price_source.is_some())
    {
        rows.push(per("cost", &|c| {
            c.figures
                .cost
                .map_or_else(|| "no price".into(), |cost| format!("${cost:.4}"))
        }));
    }
    let columns = rows[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        if n == table_end {
            out.push('\n');
        }
        let mut line = String::new();
        for (i, text) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = widths[i] - text.chars().count();
            if i == 0 {
                line.push_str(text);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(text);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !matrix.pairs.is_empty() {
        out.push('\n');
        for pair in &matrix.pairs {
            out.push_str(&pair_line(matrix, pair));
            out.push('\n');
        }
    }
    out
}

/// `A vs B: 9/12 against 7/12; 3 cells differ (2 for A, 1 for B): within
/// noise (McNemar exact p = 1.000)`.
pub(crate) fn pair_line(matrix: &Matrix, pair: &PairDifference) -> String {
    let overall = |label: &str| {
        matrix
            .candidates
            .iter()
            .find(|c| c.label == label)
            .map(|c| format!("{}/{}", c.report.overall.correct, c.report.overall.scored))
            .unwrap_or_default()
    };
    format!(
        "{} vs {}: {} against {}; {} cells differ ({} for {}, {} for {}): {} (McNemar exact p = {:.3})",
        pair.a,
        pair.b,
        overall(&pair.a),
        overall(&pair.b),
        pair.only_a + pair.only_b,
        pair.only_a,
        pair.a,
        pair.only_b,
        pair.b,
        if pair.within_noise {
            "within noise"
        } else {
            "beyond noise"
        },
        pair.p_value,
    )
}

/// The matrix as JSON (`sift eval --json` with several candidates): each
/// candidate's report as [`super::report_json`] gives it, with its
/// figures, and the pairs.
pub fn matrix_json(matrix: &Matrix) -> Value {
    json!({
        "fields": matrix.fields,
        "candidates": matrix.candidates.iter().map(|c| json!({
            "label": c.label,
            "report": super::report_json(&c.report),
            "latency_median_ms": c.figures.latency_median_ms,
            "latency_p95_ms": c.figures.latency_p95_ms,
            "input_tokens": c.figures.input_tokens,
            "output_tokens": c.figures.output_tokens,
            "failures": c.figures.failures,
            "cost": c.figures.cost,
        })).collect::<Vec<_>>(),
        "pairs": matrix.pairs.iter().map(|p| json!({
            "a": p.a,
            "b": p.b,
            "only_a": p.only_a,
            "only_b": p.only_b,
            "p_value": p.p_value,
            "within_noise": p.within_noise,
        })).collect::<Vec<_>>(),
    })
}
