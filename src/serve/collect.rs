//! One collection shared by every scrape that wants it.
//!
//! A scrape takes the collector's lock. If the last collection finished
//! after the scrape arrived (it was in flight meanwhile), or started less
//! than `--collect.interval` ago, the scrape is served from it; otherwise
//! the scrape collects, and the scrapes queued behind it reuse that result.
//! So however many scrapes come at once, only one collection is in flight.
//!
//! The collection itself runs on a blocking thread, in a task of its own:
//! a scrape that gives up (its client left, its timeout passed) never
//! cancels it halfway, and the next scrape finds the result.

use crate::model::Row;
use crate::render::exporter::Health;
use hyper::body::Bytes;
use std::sync::{Arc, Mutex as StdMutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::Mutex;

/// What one collection read: every selected GPU's row (a GPU that missed
/// the deadline has a late row), their processes where the profile shows
/// them, and how many GPUs missed the deadline.
pub struct Collected {
    pub rows: Vec<Row>,
    pub apps: Vec<Row>,
    /// Each GPU's energy counter (mJ), in the order of `rows`' GPUs.
    pub energy_mj: Vec<Option<u64>>,
    /// Each GPU's dcgm-profile reads (minor number, GPM, MIG instances), in
    /// the order of `rows`' GPUs; empty for the other profiles.
    pub extra: Vec<crate::model::gpm::GpuExtra>,
    pub late: usize,
}

/// Reads every GPU once, by the deadline given. It blocks; it is only
/// called on a blocking thread.
pub type CollectFn = Box<dyn FnMut(Instant) -> Collected + Send>;

/// Turns a collection into the profile's exposition (pure).
pub type RenderFn = Arc<dyn Fn(&Collected) -> Vec<u8> + Send + Sync>;

/// A finished collection, rendered once for every scrape that shares it.
pub struct Sample {
    pub body: Bytes,
    started: Instant,
    finished: Instant,
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
        let answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        answers
            .iter()
            .find(|(h, f, _)| h == health && *f == form)
            .map(|(_, _, b)| b.clone())
    }

    /// Keep an answer for the next scrapes (the latest one per form).
    pub fn remember(&self, health: Health, form: Form, body: Bytes) {
        let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        answers.retain(|(_, f, _)| *f != form);
        answers.push((health, form, body));
    }
}

struct Slot {
    /// `None` only while a collection runs.
    job: Option<CollectFn>,
    last: Option<Arc<Sample>>,
}

pub struct Collector {
    slot: Arc<Mutex<Slot>>,
    interval: Duration,
    render: RenderFn,
    health: Arc<StdMutex<Health>>,
}

impl Collector {
    pub fn new(job: CollectFn, interval: Duration, render: RenderFn) -> Self {
        Collector {
            slot: Arc::new(Mutex::new(Slot {
                job: Some(job),
                last: None,
            })),
            interval,
            render,
            health: Arc::new(StdMutex::new(Health::default())),
        }
    }

    /// The collection-health figures as they are now.
    pub fn health(&self) -> Health {
        *self.health.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A scrape gave up waiting for a collection.
    pub fn note_timeout(&self) {
        self.health
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .scrape_timeouts += 1;
    }

    /// The sample for a scrape that arrived at `arrived`: a shared one, or
    /// a new collection whose GPUs are read by `deadline`. `None` if the
    /// collection could not run (its thread could not start).
    pub async fn sample(&self, arrived: Instant, deadline: Instant) -> Option<Arc<Sample>> {
        let mut slot = Arc::clone(&self.slot).lock_owned().await;
        if let Some(last) = &slot.last {
            let recent = arrived.saturating_duration_since(last.started) < self.interval;
            if last.finished >= arrived || recent {
                return Some(Arc::clone(last));
            }
        }
        let render = Arc::clone(&self.render);
        let health = Arc::clone(&self.health);
        let task = tokio::spawn(async move {
            let mut job = slot.job.take()?;
            let blocking = tokio::task::spawn_blocking(move || {
                let started = Instant::now();
                let got = job(deadline);
                let body = Bytes::from(render(&got));
                let sample = Sample {
                    body,
                    started,
                    finished: Instant::now(),
                    answers: StdMutex::new(Vec::new()),
                };
                (job, sample, got.late)
            });
            let (job, sample, late) = blocking.await.ok()?;
            slot.job = Some(job);
            record(&health, &sample, late);
            let sample = Arc::new(sample);
            slot.last = Some(Arc::clone(&sample));
            Some(sample)
        });
        task.await.ok().flatten()
    }
}

fn record(health: &StdMutex<Health>, sample: &Sample, late: usize) {
    let mut h = health.lock().unwrap_or_else(PoisonError::into_inner);
    h.collections += 1;
    h.last_duration = Some(sample.finished.saturating_duration_since(sample.started));
    h.late_gpus = late;
    if late == 0 {
        h.last_success_unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs_f64());
    } else {
        h.failures += 1;
    }
}
