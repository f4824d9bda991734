//! The one platform-specific part of the local server: making sure it dies
//! with Sift, however Sift ends. `kill_on_drop` covers an orderly exit
//! only; after a crash or `kill -9` nothing in Sift runs any more, so the
//! operating system has to do it.
//!
//! - **Linux:** the server starts under `setpriv --pdeathsig KILL`
//!   (util-linux, on every Debian and Ubuntu system), so the kernel sends
//!   it `SIGKILL` when its parent goes. The death signal fires when the
//!   *thread* that forked it exits, not the process, so every server is
//!   spawned from one thread that lives as long as Sift.
//! - **macOS** has no death signal. The equivalent is a watcher on the
//!   parent's pid (`kqueue` with `EVFILT_PROC`/`NOTE_EXIT`) in a small
//!   launcher that then kills the server.
//! - **Windows:** a Job object with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`;
//!   the job's handle closes with Sift, and the system ends the server.
//!
//! Only Linux is built and tested; elsewhere the server is spawned plainly
//! and lives on after a crash until it is stopped.

use std::sync::OnceLock;
use std::sync::mpsc;

use tokio::process::{Child, Command};

type SpawnJob = Box<dyn FnOnce() + Send>;

/// The thread every server is forked from (see the module comment).
fn spawner() -> &'static std::sync::Mutex<mpsc::Sender<SpawnJob>> {
    static SPAWNER: OnceLock<std::sync::Mutex<mpsc::Sender<SpawnJob>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<SpawnJob>();
        // If the thread cannot start, the jobs' senders are dropped unrun
        // and `spawn_tied` reports that the spawner is gone.
        let _ = std::thread::Builder::new()
            .name("sift-local-server-spawner".into())
            .spawn(move || {
                for job in queue {
                    job();
                }
            });
        std::sync::Mutex::new(jobs)
    })
}

/// The command line that runs `program` tied to Sift's life.
pub(crate) fn tied_command(program: &std::path::Path) -> Command {
    if cfg!(target_os = "linux") && std::path::Path::new(SETPRIV).exists() {
        let mut command = Command::new(SETPRIV);
        command.args(["--pdeathsig", "KILL", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

const SETPRIV: &str = "/usr/bin/setpriv";

/// Spawns `command` from the long-lived spawner thread, inside the
/// caller's Tokio runtime so that the child can be awaited there.
pub(crate) async fn spawn_tied(mut command: Command) -> std::io::Result<Child> {
    let runtime = tokio::runtime::Handle::current();
    let (answer, answered) = tokio::sync::oneshot::channel();
    let job: SpawnJob = Box::new(move || {
        let _entered = runtime.enter();
        let _ = answer.send(command.spawn());
    });
    let sent = spawner()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .send(job);
    if sent.is_err() {
        return Err(std::io::Error::other("the server spawner thread is gone"));
    }
    answered
        .await
        .unwrap_or_else(|_| Err(std::io::Error::other("the server spawner thread is gone")))
}
