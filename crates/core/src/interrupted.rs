//! Work a crash cut short, found when a workspace first opens its store:
//! jobs, workflow runs and chat replies still `running` whose owner
//! ([`crate::process_owner`]) is gone become interrupted. A job is then
//! resumable (Resume), a run's running step shows as interrupted (Re-run
//! from it), a chat's cut reply is kept with the message it answered
//! (Regenerate). Work of a process still running (the CLI beside the
//! app, another window) is left alone.

use sift_store::{Interrupted, Store};

use crate::error::CoreError;
use crate::process_owner;

/// Marks the work of every gone owner interrupted; returns what was
/// marked. Work without an owner (written by a build before owners) is
/// taken as gone: no running process can be its owner.
pub fn mark_gone_owners_work(store: &Store) -> Result<Interrupted, CoreError> {
    let mut marked = Interrupted::default();
    for owner in store.running_owners()? {
        let gone = owner.as_deref().is_none_or(process_owner::is_gone);
        if !gone {
            continue;
        }
        let one = store.interrupt_owner(owner.as_deref())?;
        marked.jobs.extend(one.jobs);
        marked.runs.extend(one.runs);
        marked.replies.extend(one.replies);
    }
    Ok(marked)
}
