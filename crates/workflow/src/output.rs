//! A step's stdout and stderr: kept for its record and passed on as
//! events while it runs.

use std::sync::Mutex;

use crate::record::{EventSink, RunEvent};

/// Collects a step's stdout and stderr while passing them on as events.
pub(crate) struct StepOutput {
    name: String,
    sink: EventSink,
    stdout: Mutex<String>,
    stderr: Mutex<String>,
}

impl StepOutput {
    pub(crate) fn new(name: &str, sink: EventSink) -> Self {
        Self {
            name: name.to_owned(),
            sink,
            stdout: Mutex::new(String::new()),
            stderr: Mutex::new(String::new()),
        }
    }

    pub(crate) fn stdout(&self, text: &str) {
        if let Ok(mut out) = self.stdout.lock() {
            out.push_str(text);
        }
        (self.sink)(RunEvent::Stdout {
            name: self.name.clone(),
            text: text.to_owned(),
        });
    }

    pub(crate) fn stderr(&self, text: &str) {
        if let Ok(mut out) = self.stderr.lock() {
            out.push_str(text);
        }
        (self.sink)(RunEvent::Stderr {
            name: self.name.clone(),
            text: text.to_owned(),
        });
    }

    /// The output so far, per stream, leaving it empty.
    pub(crate) fn take(&self) -> (String, String) {
        let take = |m: &Mutex<String>| {
            m.lock()
                .map(|mut s| std::mem::take(&mut *s))
                .unwrap_or_default()
        };
        (take(&self.stdout), take(&self.stderr))
    }
}

/// Notes each `${...}` that named nothing on the step's stderr.
pub(crate) fn report_unknown(output: &StepOutput, unknown: &mut Vec<String>) {
    for reference in unknown.drain(..) {
        output.stderr(&format!(
            "notice: {reference} names nothing known here; it was kept as written\n"
        ));
    }
}
