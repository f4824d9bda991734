//! Several base URLs behind one provider: hosts serving the same models
//! (several Ollama, vLLM or llama-server machines). Each request goes to
//! the endpoint with the most free capacity; one whose request fails in
//! a way another endpoint may not (a network-category failure: refused,
//! dropped, timed out, 5xx) is passed over for a cooldown, and the same
//! request goes at once to the next endpoint that is up. Only when every
//! endpoint failed does the client's retry policy wait.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::error::{ErrorCategory, LlmError};

/// What is known of one endpoint.
#[derive(Debug, Default)]
struct Load {
    /// Requests sent there and not yet answered (a stream counts until
    /// its end).
    in_flight: u32,
    /// When a request there last failed; cleared by a success.
    failed_at: Option<Instant>,
}

type Loads = Arc<Mutex<Vec<Load>>>;

/// The loads of every list of several endpoints in use, by the list.
///
/// Kept for the process rather than per client: an extraction job builds
/// one client per document, and an endpoint's free capacity is what all
/// of them leave it, so clients of the same list must count together (and
/// skip an endpoint another one found down). Keyed by the whole list, not
/// by each address, so that an address's record never outlives the list
/// it was measured for into an unrelated one (in tests, a port used again).
static SHARED: LazyLock<Mutex<HashMap<Vec<String>, Loads>>> = LazyLock::new(Mutex::default);

/// A client's endpoints, in the order the configuration lists them.
#[derive(Debug, Clone)]
pub(crate) struct Endpoints {
    base_urls: Arc<[String]>,
    /// How many requests each endpoint takes at once.
    capacity: Arc<[u32]>,
    cooldown: Duration,
    loads: Loads,
}

/// One request's hold on an endpoint: it counts as in flight there until
/// dropped.
#[derive(Debug)]
pub(crate) struct Lease {
    loads: Loads,
    index: usize,
    base_url: String,
}

/// The sends of one attempt: the first endpoint, then each other one that
/// is up while the endpoints fail over.
#[derive(Debug)]
pub(crate) struct Round<'a> {
    endpoints: &'a Endpoints,
    tried: Vec<usize>,
    last: Option<AttemptError>,
}

impl Endpoints {
    /// `capacity` and `cooldown` as in [`crate::ClientConfig`].
    pub(crate) fn new<'u>(
        base_urls: impl Iterator<Item = &'u str>,
        capacity: &[u32],
        cooldown: Duration,
    ) -> Self {
        let base_urls: Vec<String> = base_urls
            .map(|url| url.trim_end_matches('/').to_owned())
            .collect();
        let capacity = (0..base_urls.len())
            .map(|i| capacity.get(i).copied().unwrap_or(1).max(1))
            .collect();
        let loads = if base_urls.len() > 1 {
            let mut shared = lock(&SHARED);
            Arc::clone(shared.entry(base_urls.clone()).or_insert_with(|| {
                Arc::new(Mutex::new(
                    base_urls.iter().map(|_| Load::default()).collect(),
                ))
            }))
        } else {
            // One endpoint is never chosen between: nothing to share.
            Arc::new(Mutex::new(vec![Load::default()]))
        };
        Self {
            base_urls: base_urls.into(),
            capacity,
            cooldown,
            loads,
        }
    }

    pub(crate) fn round(&self) -> Round<'_> {
        Round {
            endpoints: self,
            tried: Vec::new(),
            last: None,
        }
    }

    /// The endpoint for a request already sent to `tried` in this round:
    /// among those up and not tried, the one with the most free capacity
    /// (capacity less in flight, below zero past it), the first listed on
    /// a tie. When none is up, a round's first send goes to the least
    /// recently failed, so that a request is never refused outright; a
    /// later send gets `None`, and the retry policy takes over.
    fn pick(&self, tried: &[usize]) -> Option<Lease> {
        let now = Instant::now();
        let mut loads = lock(&self.loads);
        let is_up = |load: &Load| {
            load.failed_at
                .is_none_or(|at| now.saturating_duration_since(at) >= self.cooldown)
        };
        let mut best: Option<(usize, i64)> = None;
        for (i, load) in loads.iter().enumerate() {
            if tried.contains(&i) || !is_up(load) {
                continue;
            }
            let free = i64::from(self.capacity[i]) - i64::from(load.in_flight);
            if best.is_none_or(|(_, most)| free > most) {
                best = Some((i, free));
            }
        }
        let index = match best {
            Some((i, _)) => i,
            None if tried.is_empty() => loads
                .iter()
                .enumerate()
                .min_by_key(|(_, load)| load.failed_at)
                .map(|(i, _)| i)?,
            None => return None,
        };
        loads[index].in_flight += 1;
        Some(Lease {
            loads: Arc::clone(&self.loads),
            index,
            base_url: self.base_urls[index].clone(),
        })
    }

    /// Adds the endpoint to a message that does not name it, when there
    /// are several to tell apart.
    fn name_in(&self, error: &mut LlmError, base_url: &str) {
        if self.base_urls.len() > 1 && !error.message.contains(base_url) {
            error.message = format!("{} (at {base_url})", error.message);
        }
    }
}

impl Lease {
    pub(crate) fn base_url(&self) -> &str {
        &self.base_url
    }

    fn mark(&self, failed_at: Option<Instant>) {
        lock(&self.loads)[self.index].failed_at = failed_at;
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut loads = lock(&self.loads);
        let load = &mut loads[self.index];
        load.in_flight = load.in_flight.saturating_sub(1);
    }
}

impl Round<'_> {
    /// Where to send next; `None` once the round is over.
    pub(crate) fn next(&mut self) -> Option<Lease> {
        let lease = self.endpoints.pick(&self.tried)?;
        self.tried.push(lease.index);
        Some(lease)
    }

    /// Records how a send went. `Some`: the round's outcome. `None`: the
    /// endpoint failed in a way another may not, and is passed over for
    /// the cooldown; send to [`Self::next`] (or, for a stream that has
    /// shown text, end with [`Self::failure`]).
    pub(crate) fn settle<T>(
        &mut self,
        lease: Lease,
        result: Result<T, AttemptError>,
    ) -> Option<Result<T, AttemptError>> {
        match result {
            Ok(value) => {
                lease.mark(None);
                Some(Ok(value))
            }
            Err(mut failure) => {
                failure.sent = self.sent();
                self.endpoints.name_in(&mut failure.error, lease.base_url());
                if failure.error.is_transient() {
                    lease.mark(Some(Instant::now()));
                    self.last = Some(failure);
                    None
                } else {
                    Some(Err(failure))
                }
            }
        }
    }

    /// The round's last failure.
    pub(crate) fn failure(self) -> AttemptError {
        let sent = self.sent();
        self.last.unwrap_or_else(|| AttemptError {
            // Unreachable: a round's first send always has an endpoint.
            error: LlmError::new(ErrorCategory::Other, "no endpoint to send the request to"),
            retry_after: None,
            sent,
        })
    }

    fn sent(&self) -> u32 {
        u32::try_from(self.tried.len()).unwrap_or(u32::MAX)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Counters only: a panic elsewhere leaves nothing half-written.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A failed attempt, with what the server said about when to come back.
#[derive(Debug)]
pub(crate) struct AttemptError {
    pub(crate) error: LlmError,
    pub(crate) retry_after: Option<Duration>,
    /// The requests the attempt sent: more than one when it failed over
    /// to other endpoints.
    pub(crate) sent: u32,
}

impl From<LlmError> for AttemptError {
    fn from(error: LlmError) -> Self {
        Self {
            error,
            retry_after: None,
            sent: 1,
        }
    }
}
