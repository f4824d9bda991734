//! Whose work a row is: a token naming this process, and whether the
//! process a token names is gone. A row left `running` by a process that
//! is gone was cut short by a crash (or `kill -9`); see [`crate::interrupted`].
//!
//! A process id alone is not enough, since ids are reused: the token adds
//! the process's start time (in clock ticks since boot, from
//! `/proc/PID/stat`) and the boot's id, so a later process that got the
//! same id, or any process after a reboot, is not taken for the owner.
//! Where there is no `/proc` (not Linux), no owner is ever judged gone:
//! only work without an owner is marked interrupted there.

/// This process's token: `PID:START:BOOT`.
pub fn current() -> String {
    let pid = std::process::id();
    format!(
        "{pid}:{}:{}",
        start_ticks(pid).unwrap_or(0),
        boot_id().unwrap_or_default()
    )
}

/// Whether the process `token` names has ended (or the machine has
/// rebooted since). A token this build cannot read counts as gone: no
/// running process wrote it.
pub fn is_gone(token: &str) -> bool {
    if !cfg!(target_os = "linux") {
        return false;
    }
    let mut parts = token.splitn(3, ':');
    let (Some(pid), Some(start), Some(boot)) = (parts.next(), parts.next(), parts.next()) else {
        return true;
    };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
        return true;
    };
    if boot_id().as_deref() != Some(boot) {
        return true;
    }
    // A killed process stays in /proc as a zombie until its parent reaps
    // it (a WebDriver, a shell that is busy): it runs no more code.
    match stat_fields(pid) {
        Some(fields) => fields.start != start || matches!(fields.state, 'Z' | 'X'),
        None => true,
    }
}

/// What `/proc/PID/stat` says of a process: its state and start time.
struct StatFields {
    /// Field 3: `R`, `S`, ... `Z` (zombie), `X` (dead).
    state: char,
    /// Field 22, in clock ticks since boot.
    start: u64,
}

/// The command name (field 2, in parentheses) may hold spaces and
/// parentheses, so the fields are counted after its last `)`.
fn stat_fields(pid: u32) -> Option<StatFields> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    // After the state (field 3) comes field 4: field 22 is the 19th on.
    let start = fields.nth(18)?.parse().ok()?;
    Some(StatFields { state, start })
}

fn start_ticks(pid: u32) -> Option<u64> {
    stat_fields(pid).map(|fields| fields.start)
}

fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_owned())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_an_ended_one_is_gone() {
        let me = current();
        assert!(!is_gone(&me), "{me}");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let token = format!(
            "{pid}:{}:{}",
            start_ticks(pid).unwrap_or(0),
            boot_id().unwrap()
        );
        child.wait().unwrap();
        assert!(is_gone(&token), "{token}");
        // The same id started at another time is another process.
        let pid = std::process::id();
        let other = format!("{pid}:1:{}", boot_id().unwrap());
        assert!(is_gone(&other));
        let rebooted = format!("{pid}:{}:another-boot", start_ticks(pid).unwrap());
        assert!(is_gone(&rebooted));
        assert!(is_gone("not a token"));
    }

    #[test]
    fn a_killed_process_not_yet_reaped_is_gone() {
        let mut child = std::process::Command::new("sleep")
            .arg("1000")
            .spawn()
            .unwrap();
        let pid = child.id();
        let token = format!("{pid}:{}:{}", start_ticks(pid).unwrap(), boot_id().unwrap());
        assert!(!is_gone(&token), "a sleeping child is alive: {token}");
        child.kill().unwrap();
        // Until this test waits for it, the child is a zombie: its /proc
        // entry, start time included, is still there.
        let zombie = || stat_fields(pid).is_some_and(|fields| fields.state == 'Z');
        while !zombie() {
            std::thread::yield_now();
        }
        assert_eq!(
            start_ticks(pid),
            token.split(':').nth(1).unwrap().parse().ok()
        );
        assert!(is_gone(&token), "a zombie is gone: {token}");
        child.wait().unwrap();
    }
}
