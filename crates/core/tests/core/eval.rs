//! `sift eval`'s parts through the API: the truth TSV read, documents
//! scored field by field, and the report printed.

use serde_json::json;
use sift_core::eval::{
    EvalDocument, Truth, format_table, parse_truth, report_json, score, scored_fields,
};
use sift_core::extract::export::schema_columns_from_text;

/// Three documents' truth, one cell quoted, one empty.
fn truth() -> Truth {
    parse_truth(
        "file\tinvoice_number\tdate\ttotal\tnotes\n\
         a.pdf\t42\t2014-08-03\t4.11\t\"say \"\"hi\"\"\"\n\
         b.pdf\tX-1\t\t319.0\t\n\
         c.pdf\t7\t2015-01-02\t1.021,91\t\n",
    )
    .unwrap()
}

#[test]
fn truth_tsv_parses_with_quoted_cells() {
    let truth = truth();
    assert_eq!(truth.columns, ["invoice_number", "date", "total", "notes"]);
    assert_eq!(truth.rows.len(), 3);
    assert_eq!(truth.rows["a.pdf"]["notes"], "say \"hi\"");
    assert_eq!(truth.row_for("/some/dir/b.pdf").unwrap()["total"], "319.0");
    assert!(parse_truth("name\tx\n").is_err());
}

#[test]
fn scoring_counts_per_field_and_overall() {
    let columns = schema_columns_from_text(
        r#"{"type": "object", "properties": {
            "invoice_number": {"type": "string"},
            "date": {"type": "string"},
            "total": {"type": "number"},
            "vendor": {"type": "string"}
        }}"#,
    )
    .unwrap();
    let truth = truth();
    let fields = scored_fields(&columns, &truth);
    assert_eq!(fields, ["invoice_number", "date", "total"]);
    let documents = [
        EvalDocument {
            file: "dir/a.pdf".into(),
            values: Some(json!({"invoice_number": "42", "date": "03/08/2014", "total": 4.11})),
            error: None,
            evidence: Vec::new(),
            sources: None,
            call: Default::default(),
        },
        EvalDocument {
            file: "b.pdf".into(),
            // The date has no truth: not scored.
            values: Some(json!({"invoice_number": "x-1", "date": "nonsense", "total": 391})),
            error: None,
            evidence: Vec::new(),
            sources: None,
            call: Default::default(),
        },
        EvalDocument {
            file: "c.pdf".into(),
            values: None,
            error: Some("failed".into()),
            evidence: Vec::new(),
            sources: None,
            call: Default::default(),
        },
        EvalDocument {
            file: "d.pdf".into(),
            values: Some(json!({})),
            error: None,
            evidence: Vec::new(),
            sources: None,
            call: Default::default(),
        },
    ];
    let report = score(&fields, &truth, &documents);
    let counts: Vec<(&str, usize, usize)> = report
        .fields
        .iter()
        .map(|s| (s.field.as_str(), s.correct, s.scored))
        .collect();
    assert_eq!(
        counts,
        [("invoice_number", 2, 3), ("date", 1, 2), ("total", 1, 3)]
    );
    assert_eq!((report.overall.correct, report.overall.scored), (4, 8));
    assert_eq!(report.unmatched, ["d.pdf"]);
    assert_eq!(
        format_table(&report),
        "invoice_number  2/3   66.7%\n\
         date            1/2   50.0%\n\
         total           1/3   33.3%\n\
         overall         4/8   50.0%\n"
    );
    let json = report_json(&report);
    assert_eq!(json["overall"]["accuracy"], json!(0.5));
    assert_eq!(json["comparisons"].as_array().unwrap().len(), 8);
}
