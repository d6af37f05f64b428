//! The open connections: a table that keeps their number within
//! `--web.max-connections` without letting stalled clients fill it, and an
//! I/O wrapper that notes each client's progress and closes a connection
//! whose answer waits longer than the write timeout for its client.
//!
//! A connection is *stalled* while nvq waits for its client: for a request
//! head (an idle keep-alive included) or for room to write its answer (the
//! client does not read). It is not stalled while nvq answers a request,
//! unless its client keeps more than [`MAX_PIPELINED`] requests queued
//! ahead of its answers (it pipelines and never lets nvq wait for the next
//! request: a client that does not read its answers, until the socket
//! buffers are full); then it counts as stalled since nvq last waited for
//! it.
//! When the table is full, a new connection takes the place of the one
//! that has stalled longest, if it has stalled for at least
//! [`EVICT_AFTER`]; when none has (every slot is being answered), the new
//! connection is closed. So clients that pipeline requests and never read
//! their answers, or open connections and send nothing, can delay a
//! well-behaved scraper by one connection set-up, never lock it out.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Sleep;

/// The shortest stall that lets a new connection take a stalled one's place
/// (so that a burst of new connections does not close each other before
/// they have sent their request).
pub const EVICT_AFTER: Duration = Duration::from_millis(200);

/// How many requests in a row a connection may have answered without nvq
/// ever waiting for its next request before it counts as stalled.
pub const MAX_PIPELINED: u32 = 8;

/// One open connection.
pub struct Entry {
    id: u64,
    epoch: Instant,
    /// When it was admitted, in ms since `epoch`.
    started: u64,
    /// When its client last sent or took bytes, in ms since `epoch`.
    progress: AtomicU64,
    /// Requests being answered now.
    busy: AtomicUsize,
    /// Requests started since nvq last waited for this client's next bytes,
    /// and when that was (ms since `epoch`).
    since_wait: AtomicU32,
    last_wait: AtomicU64,
    /// When its last answer was finished (ms since `epoch`), or [`NEVER`].
    answered: AtomicU64,
    /// When the first byte of the request head nvq is waiting for came
    /// (ms since `epoch`), or [`NEVER`] while none has.
    head_from: AtomicU64,
    evict: Notify,
    peer: Mutex<Option<SocketAddr>>,
}

/// No such time yet.
const NEVER: u64 = u64::MAX;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Entry {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn touch(&self) {
        self.progress.store(self.now_ms(), Ordering::Relaxed);
    }

    pub fn set_peer(&self, peer: SocketAddr) {
        *lock(&self.peer) = Some(peer);
    }

    /// Mark a request as being answered until the guard is dropped.
    pub fn busy(self: &Arc<Self>) -> Busy {
        self.head_from.store(NEVER, Ordering::Relaxed);
        self.busy.fetch_add(1, Ordering::Relaxed);
        self.since_wait.fetch_add(1, Ordering::Relaxed);
        Busy(Arc::clone(self))
    }

    /// Resolves when the table has given this connection's place away.
    pub fn evicted(&self) -> impl Future<Output = ()> + '_ {
        self.evict.notified()
    }

    /// nvq is waiting for this client's next bytes.
    fn waiting(&self) {
        self.since_wait.store(0, Ordering::Relaxed);
        self.last_wait.store(self.now_ms(), Ordering::Relaxed);
    }

    /// How long it has stalled, or `None` while a request is answered.
    fn stalled(&self) -> Option<u64> {
        let now = self.now_ms();
        if self.busy.load(Ordering::Relaxed) == 0 {
            Some(now.saturating_sub(self.progress.load(Ordering::Relaxed)))
        } else if self.since_wait.load(Ordering::Relaxed) > MAX_PIPELINED {
            Some(now.saturating_sub(self.last_wait.load(Ordering::Relaxed)))
        } else {
            None
        }
    }
}

/// A request being answered (see [`Entry::busy`]).
pub struct Busy(Arc<Entry>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.answered.store(self.0.now_ms(), Ordering::Relaxed);
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

pub enum Admitted {
    Yes(Arc<Entry>),
    /// Admitted in the place of the connection from this peer.
    Evicted(Arc<Entry>, String),
    No,
}

/// The open connections, at most `max`.
pub struct Table {
    max: usize,
    epoch: Instant,
    next: AtomicU64,
    open: Mutex<Vec<Arc<Entry>>>,
    emptied: Notify,
}

impl Table {
    pub fn new(max: usize) -> Self {
        Table {
            max,
            epoch: Instant::now(),
            next: AtomicU64::new(0),
            open: Mutex::new(Vec::new()),
            emptied: Notify::new(),
        }
    }

    /// A place for a new connection: a free one, or the place of the
    /// connection stalled longest (at least [`EVICT_AFTER`]), or none.
    pub fn admit(&self) -> Admitted {
        let entry = Arc::new(Entry {
            id: self.next.fetch_add(1, Ordering::Relaxed),
            epoch: self.epoch,
            started: u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX),
            progress: AtomicU64::new(0),
            busy: AtomicUsize::new(0),
            since_wait: AtomicU32::new(0),
            last_wait: AtomicU64::new(0),
            answered: AtomicU64::new(NEVER),
            head_from: AtomicU64::new(NEVER),
            evict: Notify::new(),
            peer: Mutex::new(None),
        });
        entry.touch();
        entry.waiting();
        let mut open = lock(&self.open);
        if open.len() < self.max {
            open.push(Arc::clone(&entry));
            return Admitted::Yes(entry);
        }
        let min = u64::try_from(EVICT_AFTER.as_millis()).unwrap_or(0);
        let victim = open
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.stalled().filter(|&s| s >= min).map(|s| (s, i)))
            .max()
            .map(|(_, i)| i);
        let Some(i) = victim else {
            return Admitted::No;
        };
        let old = open.swap_remove(i);
        old.evict.notify_one();
        open.push(Arc::clone(&entry));
        let peer = lock(&old.peer).map_or_else(|| "?".to_string(), |p| p.to_string());
        Admitted::Evicted(entry, peer)
    }

    /// A connection has closed.
    pub fn remove(&self, entry: &Entry) {
        let mut open = lock(&self.open);
        open.retain(|e| e.id != entry.id);
        if open.is_empty() {
            self.emptied.notify_waiters();
        }
    }

    /// Resolves once no connection is open.
    pub async fn empty(&self) {
        loop {
            let emptied = self.emptied.notified();
            tokio::pin!(emptied);
            emptied.as_mut().enable();
            if lock(&self.open).is_empty() {
                return;
            }
            emptied.await;
        }
    }
}

/// How long a connection may keep nvq waiting for its client.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// For a request head, from its first byte (and, on a new connection,
    /// from the connection's start).
    pub read: Duration,
    /// For the next request on a kept-alive connection, from the last answer.
    pub idle: Duration,
    /// For the client to make room for an answer.
    pub write: Duration,
}

/// A connection's socket: notes its client's progress, fails a read that
/// has waited past the read or idle timeout for the client's next request,
/// and a write that has waited `write` for the client to make room.
pub struct Guarded<S> {
    inner: S,
    entry: Arc<Entry>,
    timeouts: Timeouts,
    stall: Option<Pin<Box<Sleep>>>,
    /// The read's deadline (ms since the entry's epoch) and its clock.
    quiet: Option<(u64, Pin<Box<Sleep>>)>,
}

impl<S> Guarded<S> {
    pub fn new(inner: S, entry: Arc<Entry>, timeouts: Timeouts) -> Self {
        Guarded {
            inner,
            entry,
            timeouts,
            stall: None,
            quiet: None,
        }
    }

    /// When a read waiting for the client must give up (ms since the
    /// entry's epoch), or `None` while a request is being answered (hyper
    /// then reads only what the client pipelines ahead).
    fn read_deadline(&self) -> Option<u64> {
        let e = &self.entry;
        if e.busy.load(Ordering::Relaxed) > 0 {
            return None;
        }
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let head = e.head_from.load(Ordering::Relaxed);
        let answered = e.answered.load(Ordering::Relaxed);
        Some(if head != NEVER {
            head.saturating_add(ms(self.timeouts.read))
        } else if answered != NEVER {
            answered.saturating_add(ms(self.timeouts.idle))
        } else {
            e.started.saturating_add(ms(self.timeouts.read))
        })
    }

    /// The read is pending: start, move or check its clock.
    fn quiet(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let Some(deadline) = self.read_deadline() else {
            self.quiet = None;
            return Poll::Pending;
        };
        let at = self.entry.epoch + Duration::from_millis(deadline);
        let at = tokio::time::Instant::from_std(at);
        match &mut self.quiet {
            Some((d, _)) if *d == deadline => {}
            Some((d, sleep)) => {
                *d = deadline;
                sleep.as_mut().reset(at);
            }
            None => self.quiet = Some((deadline, Box::pin(tokio::time::sleep_until(at)))),
        }
        let Some((_, sleep)) = &mut self.quiet else {
            return Poll::Pending;
        };
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client sent no request within the read or idle timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The write is pending: start (or check) the stall clock.
    fn pending<T>(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<T>> {
        let limit = self.timeouts.write;
        let stall = self
            .stall
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match stall.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client did not read its answer within the write timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let Poll::Ready(r) = Pin::new(&mut this.inner).poll_read(cx, buf) else {
            this.entry.waiting();
            return this.quiet(cx);
        };
        r?;
        if buf.filled().len() > before {
            this.entry.touch();
            let e = &this.entry;
            if e.busy.load(Ordering::Relaxed) == 0 && e.head_from.load(Ordering::Relaxed) == NEVER {
                e.head_from.store(e.now_ms(), Ordering::Relaxed);
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(r) => {
                this.stall = None;
                if r.as_ref().is_ok_and(|&n| n > 0) {
                    this.entry.touch();
                }
                Poll::Ready(r)
            }
            Poll::Pending => this.pending(cx),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Ready(r) => {
                this.stall = None;
                Poll::Ready(r)
            }
            Poll::Pending => this.pending(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_gives_the_longest_stalled_place_away_but_not_a_busy_one() {
        let t = Table::new(2);
        let Admitted::Yes(a) = t.admit() else {
            panic!()
        };
        let Admitted::Yes(b) = t.admit() else {
            panic!()
        };
        // Neither has stalled long enough yet.
        assert!(matches!(t.admit(), Admitted::No));
        let _answering = a.busy();
        std::thread::sleep(EVICT_AFTER + Duration::from_millis(20));
        match t.admit() {
            Admitted::Evicted(c, _) => {
                let open = lock(&t.open);
                assert!(open.iter().any(|e| e.id == a.id) && open.iter().any(|e| e.id == c.id));
                assert!(!open.iter().any(|e| e.id == b.id));
            }
            _ => panic!("no place given"),
        }
        // A busy connection that pipelines more than MAX_PIPELINED requests
        // without a pause counts as stalled.
        let pipelined: Vec<Busy> = (0..=MAX_PIPELINED).map(|_| a.busy()).collect();
        assert!(a.stalled().is_some());
        drop(pipelined);
    }
}
