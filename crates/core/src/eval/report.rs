//! The report as `sift eval` prints it: a table, or JSON.

use serde_json::{Value, json};

use super::score::{EvalReport, FieldScore};

fn percent(score: &FieldScore) -> String {
    match score.accuracy() {
        Some(a) => format!("{:.1}%", a * 100.0),
        None => "-".into(),
    }
}

/// The report as a table: `FIELD  correct/scored  PCT%` per field, then
/// `overall`; then, when values have evidence, a blank line, `by
/// evidence` and the same for the values found `exact`, `normalised` and
/// `not_found`.
pub fn format_table(report: &EvalReport) -> String {
    let rows: Vec<&FieldScore> = report.fields.iter().chain([&report.overall]).collect();
    let mut out = table(&rows);
    if !report.by_evidence.is_empty() {
        out.push_str("\nby evidence\n");
        out.push_str(&table(&report.by_evidence.iter().collect::<Vec<_>>()));
    }
    if let Some(s) = report.sources {
        out.push_str(&format!(
            "\nsources given {}, on the page {}\n",
            s.given, s.on_page
        ));
    }
    out
}

fn table(rows: &[&FieldScore]) -> String {
    let name_width = rows.iter().map(|s| s.field.len()).max().unwrap_or(0);
    let counts: Vec<String> = rows
        .iter()
        .map(|s| format!("{}/{}", s.correct, s.scored))
        .collect();
    let count_width = counts.iter().map(String::len).max().unwrap_or(0);
    let mut out = String::new();
    for (score, count) in rows.iter().zip(&counts) {
        out.push_str(&format!(
            "{:<name_width$}  {:>count_width$}  {:>6}\n",
            score.field,
            count,
            percent(score)
        ));
    }
    out
}

/// The report as JSON (`sift eval --json`).
pub fn report_json(report: &EvalReport) -> Value {
    let score_json = |s: &FieldScore| {
        json!({
            "field": s.field,
            "correct": s.correct,
            "scored": s.scored,
            "accuracy": s.accuracy(),
        })
    };
    json!({
        "fields": report.fields.iter().map(score_json).collect::<Vec<_>>(),
        "overall": score_json(&report.overall),
        "comparisons": report.comparisons.iter().map(|c| json!({
            "file": c.file,
            "field": c.field,
            "truth": c.truth,
            "got": c.got,
            "correct": c.correct,
            "evidence": c.evidence,
        })).collect::<Vec<_>>(),
        "by_evidence": report.by_evidence.iter().map(score_json).collect::<Vec<_>>(),
        "sources": report.sources.map(|s| json!({"given": s.given, "on_page": s.on_page})),
        "unmatched": report.unmatched,
    })
}
