//! The GPU reads shared by every scrape.
//!
//! Each GPU has one worker thread that reads it when asked, one call at a
//! time, and publishes each read with the time it started and finished. A
//! scrape that arrives at `arrived` wants, for every GPU, a *fresh* read:
//! one that finished after it arrived (it was in flight meanwhile), or that
//! started less than `--collect.interval` before. It asks the idle workers
//! whose last read is not fresh, then waits, under its own deadline, for
//! each GPU's fresh read. A GPU that has none by then is late *for this
//! scrape only*: its read goes on and the next scrape gets it. So
//!
//! - however many scrapes come at once, a GPU has at most one call in
//!   flight, and there are exactly as many workers as GPUs (no thread is
//!   started per scrape, whatever the timeouts);
//! - a scrape with a long timeout never holds up one with a short timeout:
//!   each waits for the reads it needs, each until its own deadline;
//! - a scrape cut short by its own tiny deadline leaves nothing behind that
//!   the next scrapes would take for their answer.
//!
//! The answer is built once per set of reads (the same reads give the same
//! body) and, for each health and form, kept for the scrapes that share it.

use hyper::body::Bytes;
use nvq_core::model::gpm::GpuExtra;
use nvq_core::model::Row;
use nvq_core::render::exporter::{GpuHealth, Health};
use std::sync::{Arc, Condvar, Mutex as StdMutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// What one read of one GPU gave.
#[derive(Default)]
pub struct GpuRead {
    pub rows: Vec<Row>,
    pub apps: Vec<Row>,
    /// The GPU's energy counter (mJ), for the profiles that show it.
    pub energy_mj: Option<u64>,
    /// The dcgm profile's reads beside the fields.
    pub extra: Option<GpuExtra>,
    /// NVML said the GPU is lost.
    pub lost: bool,
}

/// What one scrape's reads add up to: every selected GPU's row (a GPU that
/// missed the deadline has a late row), their processes where the profile
/// shows them, and each GPU's state.
pub struct Collected {
    pub rows: Vec<Row>,
    pub apps: Vec<Row>,
    /// Each GPU's energy counter (mJ), in the order of `rows`' GPUs.
    pub energy_mj: Vec<Option<u64>>,
    /// Each GPU's dcgm-profile reads (minor number, GPM, MIG instances), in
    /// the order of `rows`' GPUs; empty for the other profiles.
    pub extra: Vec<GpuExtra>,
    /// One per selected GPU: which it is, and whether it answered.
    pub states: Vec<GpuHealth>,
}

impl Collected {
    fn count(&self, state: nvq_core::render::exporter::GpuState) -> usize {
        self.states.iter().filter(|s| s.state == state).count()
    }
}

/// Reads one GPU. It blocks; it runs only on that GPU's worker thread.
pub type ReadFn = Box<dyn FnMut() -> GpuRead + Send>;

/// Puts a scrape's reads together, in GPU order; `None`: the GPU is late
/// for this scrape. Runs under the collector's lock.
pub type AssembleFn = Box<dyn FnMut(&[Option<&GpuRead>]) -> Collected + Send>;

/// Turns a scrape's reads into the profile's exposition (pure).
pub type RenderFn = Arc<dyn Fn(&Collected) -> Vec<u8> + Send + Sync>;

/// One GPU's read, as its worker published it.
struct Done {
    read: GpuRead,
    started: Instant,
    finished: Instant,
    seq: u64,
}

/// What the scrapes ask of a worker.
#[derive(Default)]
struct Ask {
    asked: u64,
    served: u64,
    /// The worker is in a read (its finish time is taken under this lock).
    running: bool,
    /// When that read started. A scrape arriving when it has already run
    /// longer than the scrape's whole time limit takes it for stuck and does
    /// not wait for it (as a loop does not wait for a lane still in an
    /// earlier sample's call). Only the read's age and the scrape's own limit
    /// decide: another client's tiny deadline cannot make a read look stuck.
    since: Option<Instant>,
}

struct Worker {
    ask: StdMutex<Ask>,
    wake: Condvar,
    done: watch::Sender<Option<Arc<Done>>>,
}

fn lock<T>(m: &StdMutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A scrape's answer material: the reads put together and rendered.
pub struct Sample {
    pub body: Bytes,
    /// The GPUs of this sample and their states.
    pub states: Vec<GpuHealth>,
    pub late: usize,
    pub lost: usize,
    /// Which read of each GPU it holds (`None`: late).
    key: Vec<Option<u64>>,
    /// Whole answers already built from it, one per form, for the health
    /// they were built with.
    answers: StdMutex<Vec<(Health, Form, Bytes)>>,
}

/// The form of an answer: which exposition format, and whether gzip'd.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Form {
    pub openmetrics: bool,
    pub gzip: bool,
}

impl Sample {
    /// The answer built earlier for this health and form, if any.
    pub fn answer(&self, health: &Health, form: Form) -> Option<Bytes> {
        let answers = lock(&self.answers);
        answers
            .iter()
            .find(|(h, f, _)| h == health && *f == form)
            .map(|(_, _, b)| b.clone())
    }

    /// Keep an answer for the next scrapes (the latest one per form).
    pub fn remember(&self, health: Health, form: Form, body: Bytes) {
        let mut answers = lock(&self.answers);
        answers.retain(|(_, f, _)| *f != form);
        answers.push((health, form, body));
    }
}

pub struct Collector {
    workers: Vec<Arc<Worker>>,
    interval: Duration,
    assemble: StdMutex<AssembleFn>,
    render: RenderFn,
    last: StdMutex<Option<Arc<Sample>>>,
    health: StdMutex<Health>,
    /// When the server began to stop, once it has.
    stopping: watch::Sender<Option<Instant>>,
}

/// How long after SIGTERM a scrape still waits for its GPUs; the answer
/// then goes out with the GPUs that answered.
pub const STOP_GRACE: Duration = Duration::from_secs(1);

impl Collector {
    /// Start one worker thread per GPU (`reads[i]` reads GPU `i`).
    pub fn new(
        reads: Vec<ReadFn>,
        interval: Duration,
        assemble: AssembleFn,
        render: RenderFn,
    ) -> std::io::Result<Self> {
        let mut workers = Vec::with_capacity(reads.len());
        for (i, read) in reads.into_iter().enumerate() {
            let worker = Arc::new(Worker {
                ask: StdMutex::new(Ask::default()),
                wake: Condvar::new(),
                done: watch::Sender::new(None),
            });
            let w = Arc::clone(&worker);
            std::thread::Builder::new()
                .name(format!("nvq-gpu-{i}"))
                .spawn(move || work(&w, read))?;
            workers.push(worker);
        }
        Ok(Collector {
            workers,
            interval,
            assemble: StdMutex::new(assemble),
            render,
            last: StdMutex::new(None),
            health: StdMutex::new(Health::default()),
            stopping: watch::Sender::new(None),
        })
    }

    /// The worker threads (one per GPU).
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// The collection-health figures as they are now.
    pub fn health(&self) -> Health {
        *lock(&self.health)
    }

    /// The server is stopping: scrapes in progress wait at most
    /// [`STOP_GRACE`] more.
    pub fn stop(&self) {
        self.stopping.send_replace(Some(Instant::now()));
    }

    fn fresh(&self, done: &Option<Arc<Done>>, arrived: Instant) -> bool {
        done.as_ref().is_some_and(|d| {
            d.finished >= arrived || arrived.saturating_duration_since(d.started) < self.interval
        })
    }

    /// The sample for a scrape that arrived at `arrived`, with every GPU
    /// that has a fresh read by `deadline` (the others late).
    pub async fn sample(&self, arrived: Instant, deadline: Instant) -> Arc<Sample> {
        let mut waits = Vec::with_capacity(self.workers.len());
        for w in &self.workers {
            let rx = w.done.subscribe();
            let mut stuck = false;
            if !self.fresh(&rx.borrow(), arrived) {
                let mut ask = lock(&w.ask);
                if !ask.running && ask.asked == ask.served {
                    ask.asked += 1;
                    w.wake.notify_one();
                }
                let limit = deadline.saturating_duration_since(arrived);
                stuck = ask.running
                    && ask
                        .since
                        .is_some_and(|s| arrived.saturating_duration_since(s) > limit);
            }
            waits.push((rx, stuck));
        }
        let mut stopping = self.stopping.subscribe();
        for (rx, stuck) in &mut waits {
            if *stuck {
                continue;
            }
            loop {
                let until = match *stopping.borrow() {
                    Some(t) => deadline.min(t + STOP_GRACE),
                    None => deadline,
                };
                let waiting = stopping.borrow().is_none();
                tokio::select! {
                    _ = tokio::time::timeout_at(until.into(), rx.wait_for(|d| self.fresh(d, arrived))) => break,
                    _ = stopping.changed(), if waiting => continue,
                }
            }
        }
        let reads: Vec<Option<Arc<Done>>> = waits
            .iter()
            .map(|(rx, _)| {
                let d = rx.borrow();
                self.fresh(&d, arrived).then(|| d.clone()).flatten()
            })
            .collect();
        let key: Vec<Option<u64>> = reads.iter().map(|d| d.as_ref().map(|d| d.seq)).collect();
        let mut last = lock(&self.last);
        if let Some(s) = last.as_ref().filter(|s| s.key == key) {
            return Arc::clone(s);
        }
        let refs: Vec<Option<&GpuRead>> =
            reads.iter().map(|d| d.as_ref().map(|d| &d.read)).collect();
        let got = (lock(&self.assemble))(&refs);
        let body = Bytes::from((self.render)(&got));
        let sample = Arc::new(Sample {
            body,
            late: got.count(nvq_core::render::exporter::GpuState::Late),
            lost: got.count(nvq_core::render::exporter::GpuState::Lost),
            states: got.states,
            key,
            answers: StdMutex::new(Vec::new()),
        });
        self.record(&sample, Instant::now().saturating_duration_since(arrived));
        *last = Some(Arc::clone(&sample));
        sample
    }

    fn record(&self, sample: &Sample, took: Duration) {
        let mut h = lock(&self.health);
        h.collections += 1;
        h.last_duration = Some(took);
        h.late_gpus = sample.late;
        h.lost_gpus = sample.lost;
        if sample.late == 0 && sample.lost == 0 {
            h.last_success_unix = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .ok()
                .map(|d| d.as_secs_f64());
        }
        if sample.late > 0 {
            h.failures += 1;
        }
    }

    /// A scrape was answered at its time limit with GPUs still missing.
    pub fn note_timeout(&self) {
        lock(&self.health).scrape_timeouts += 1;
    }
}

/// A GPU's worker: read whenever asked, publish each read.
fn work(w: &Worker, mut read: ReadFn) {
    loop {
        let target = {
            let mut ask = lock(&w.ask);
            while ask.asked <= ask.served {
                ask = w.wake.wait(ask).unwrap_or_else(PoisonError::into_inner);
            }
            ask.running = true;
            ask.since = Some(Instant::now());
            ask.asked
        };
        let started = Instant::now();
        let value = read();
        let finished = {
            let mut ask = lock(&w.ask);
            ask.running = false;
            ask.since = None;
            ask.served = target;
            // Taken under the lock: a scrape that saw this read running
            // arrived before it finished.
            Instant::now()
        };
        let seq = w.done.borrow().as_ref().map_or(1, |d| d.seq + 1);
        w.done.send_replace(Some(Arc::new(Done {
            read: value,
            started,
            finished,
            seq,
        })));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvq_core::render::exporter::GpuState;
    use std::sync::atomic::{AtomicU64, Ordering};

    fn collector(delays_ms: Vec<u64>, interval: Duration) -> (Collector, Arc<AtomicU64>) {
        let calls = Arc::new(AtomicU64::new(0));
        let reads = delays_ms
            .into_iter()
            .map(|ms| {
                let calls = Arc::clone(&calls);
                Box::new(move || {
                    calls.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(ms));
                    GpuRead::default()
                }) as ReadFn
            })
            .collect();
        let assemble: AssembleFn = Box::new(|reads| Collected {
            rows: Vec::new(),
            apps: Vec::new(),
            energy_mj: Vec::new(),
            extra: Vec::new(),
            states: reads
                .iter()
                .enumerate()
                .map(|(i, r)| GpuHealth {
                    index: i as u32,
                    uuid: String::new(),
                    state: if r.is_some() {
                        GpuState::Ok
                    } else {
                        GpuState::Late
                    },
                })
                .collect(),
        });
        let render: RenderFn = Arc::new(|_| Vec::new());
        (
            Collector::new(reads, interval, assemble, render).unwrap(),
            calls,
        )
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// How many GPUs a scrape arriving now, with `limit` to answer in, leaves out as late.
    async fn late_within(c: &Collector, limit: Duration) -> usize {
        let now = Instant::now();
        c.sample(now, now + limit).await.late
    }

    #[test]
    fn a_slow_gpu_is_late_only_for_the_scrape_that_cannot_wait() {
        let (c, calls) = collector(vec![0, 300], Duration::from_secs(30));
        rt().block_on(async {
            assert_eq!(late_within(&c, Duration::from_millis(50)).await, 1);
            // The read goes on; the next scrape (within the interval) gets it.
            // (Its 300 ms read, and a margin for a busy machine, issue #55.)
            tokio::time::sleep(Duration::from_millis(2000)).await;
            assert_eq!(late_within(&c, Duration::from_millis(50)).await, 0);
        });
        assert_eq!(calls.load(Ordering::SeqCst), 2, "one read per GPU");
        assert_eq!(c.threads(), 2);
    }

    /// A read that has already run longer than a scrape's whole time limit
    /// is not waited for: that scrape answers as soon as the other GPUs have.
    #[test]
    fn a_stuck_gpu_is_waited_for_once() {
        let (c, _) = collector(vec![0, 5_000], Duration::ZERO);
        rt().block_on(async {
            assert_eq!(late_within(&c, Duration::from_millis(600)).await, 1);
            let now = Instant::now();
            assert_eq!(late_within(&c, Duration::from_millis(500)).await, 1);
            assert!(
                now.elapsed() < Duration::from_millis(300),
                "waited {:?}",
                now.elapsed()
            );
        });
    }

    /// A scrape cut short by its own tiny deadline does not make the reads it
    /// asked for look stuck: a scrape right after it, with time to wait, gets
    /// every GPU (a client asking for 10 ms must not blank the others).
    #[test]
    fn a_tiny_deadline_does_not_make_the_next_scrape_skip_a_read() {
        let (c, _) = collector(vec![200, 200], Duration::from_secs(30));
        rt().block_on(async {
            assert_eq!(late_within(&c, Duration::from_millis(10)).await, 2);
            assert_eq!(late_within(&c, Duration::from_secs(5)).await, 0);
        });
    }

    #[test]
    fn concurrent_scrapes_share_the_reads() {
        let (c, calls) = collector(vec![50, 50, 50], Duration::ZERO);
        rt().block_on(async {
            let now = Instant::now();
            let d = now + Duration::from_secs(5);
            let (a, b) = tokio::join!(c.sample(now, d), c.sample(now, d));
            assert!(Arc::ptr_eq(&a, &b));
            assert_eq!(a.late, 0);
        });
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }
}
