//! `sift eval --set NAME`: a stored set against candidates, as the app
//! runs it (`sift_core::eval::start_evaluation_of`): the run is stored,
//! and a candidate whose fingerprint an earlier run has is not called
//! again. Candidates are the `--model`s (with the command line's
//! provider), or a `--candidates` YAML file.

use std::io::Write;

use sift_core::Workspace;
use sift_core::calls::canonical_json;
use sift_core::eval::{
    Candidate, CandidateSpec, EvaluateEvent, format_matrix, matrix_json, start_evaluation_of,
    stored_matrix,
};
use sift_core::extract::AnswerMode;

use crate::Failure;
use crate::eval::EvalArgs;

fn candidates_of(
    args: &EvalArgs,
    ws: &Workspace,
    schema_version: i64,
) -> Result<Vec<CandidateSpec>, Failure> {
    let from_flags = |candidate: &Candidate| -> Result<CandidateSpec, Failure> {
        if candidate.provider_id.is_some() {
            return Ok(CandidateSpec::from_settings(ws, candidate, schema_version)?);
        }
        let mut selection = args.model.selection(ws);
        selection.models = candidate.model.clone().into_iter().collect();
        Ok(CandidateSpec::from_selection(
            selection,
            None,
            candidate.label.clone(),
            candidate.prompt.clone(),
            candidate.schema_version.unwrap_or(schema_version),
            candidate.ocr.unwrap_or(true),
            candidate.answers,
        )?)
    };
    let candidates: Vec<Candidate> = match &args.candidates {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Failure::Usage(format!(
                    "cannot read the candidates {}: {e}",
                    path.display()
                ))
            })?;
            serde_saphyr::from_str(&text).map_err(|e| {
                Failure::Usage(format!(
                    "the candidates {} are not a YAML list of candidates: {e}",
                    path.display()
                ))
            })?
        }
        None => {
            // Each `--answers` mode is a candidate of each model.
            let answers: Vec<Option<AnswerMode>> = if args.answers.is_empty() {
                vec![None]
            } else {
                args.answers
                    .iter()
                    .map(|a| a.parse().map(Some))
                    .collect::<Result<_, _>>()?
            };
            let models: Vec<Option<String>> = if args.model.models.is_empty() {
                vec![None]
            } else {
                args.model.models.iter().cloned().map(Some).collect()
            };
            models
                .iter()
                .flat_map(|model| {
                    answers.iter().map(move |answers| Candidate {
                        model: model.clone(),
                        answers: *answers,
                        ..Candidate::default()
                    })
                })
                .collect()
        }
    };
    if candidates.is_empty() {
        return Err(Failure::Usage(
            "the candidates file lists no candidate".into(),
        ));
    }
    candidates.iter().map(from_flags).collect()
}

#[allow(clippy::print_stderr)]
pub async fn run(args: EvalArgs, ws: &Workspace) -> Result<(), Failure> {
    let name = args.set.clone().unwrap_or_default();
    let store = ws.store()?;
    let set = sift_core::eval::get_set(&store, &name)?;
    let specs = candidates_of(&args, ws, set.set.schema_version)?;
    let sink = |event: EvaluateEvent| {
        if let EvaluateEvent::Candidate {
            position,
            reused: true,
            job_id,
            ..
        } = event
        {
            eprintln!(
                "candidate {}: reused the results of job {job_id}",
                position + 1
            );
        }
    };
    let (_, run) = start_evaluation_of(ws, name, specs, usize::from(args.jobs), sink)?;
    let view = match run.await {
        Ok(view) => view,
        Err(error) => return Err(error.into()),
    };
    for candidate in &view.candidates {
        for d in view.disagreements.iter() {
            let value = d
                .values
                .iter()
                .find(|v| v.label == candidate.candidate.label);
            if let Some(error) = value.and_then(|v| v.error.as_ref()) {
                eprintln!("{}: {}: {error}", candidate.candidate.label, d.file_name);
                break;
            }
        }
    }
    let matrix = stored_matrix(&store, &view.run_id)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut json = matrix_json(&matrix);
        json["run_id"] = serde_json::json!(view.run_id);
        json["reused"] =
            serde_json::json!(view.candidates.iter().map(|c| c.reused).collect::<Vec<_>>());
        json["pairs_in_words"] = serde_json::json!(
            view.pairs
                .iter()
                .map(|p| p.statement.clone())
                .collect::<Vec<_>>()
        );
        // The run as the Evaluate screen shows it (disagreements included).
        json["view"] = serde_json::to_value(&view).unwrap_or_default();
        let _ = writeln!(out, "{}", canonical_json(&json));
    } else {
        let _ = writeln!(out, "run {} of set {}", view.run_id, view.set_name);
        let _ = write!(out, "{}", format_matrix(&matrix));
    }
    Ok(())
}
