//! A deadline for every sample of a loop, so that one slow or hung GPU does
//! not stall the others.
//!
//! In a loop (`-l`/`-lms`), the GPUs are read off the main thread by a
//! *lane*: a worker thread that reads its GPUs in turn. While every GPU
//! answers, one lane reads them all, so a sample costs one hand-off between
//! threads, not one per GPU. A sample waits at most [`limit_for`] the
//! interval (the interval itself, but never less than one second). When a
//! lane misses that deadline it is stuck on the GPU it is reading: that GPU
//! is printed as a late row (`[Timeout]` cells, see `app.rs`), the lane is
//! left to finish its call, and the lane's other GPUs move to a new lane,
//! which reads the ones still missing at once (the sample waits for them up
//! to another limit). Until the stuck call returns, that GPU is not asked
//! again and its rows stay `[Timeout]`; its late answer is dropped (it
//! belongs to a sample already printed); afterwards its lane serves it
//! again. A one-shot query has no deadline: it waits for the driver, as
//! nvidia-smi does.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The shortest deadline: NVML calls on a healthy GPU take microseconds to
/// milliseconds, but a GPU waking up without persistence mode can take a
/// good part of a second.
pub const MIN_LIMIT: Duration = Duration::from_secs(1);

/// How long a sample of a loop with this interval waits for a GPU.
pub fn limit_for(interval: Duration) -> Duration {
    interval.max(MIN_LIMIT)
}

/// Builds, on a lane's thread, the job that reads one GPU.
type Make<T> = dyn Fn(usize) -> Box<dyn FnMut() -> T> + Send + Sync;

/// What the lanes hand back. Answers are put here as each GPU is read
/// (so the GPUs read before a hang are not lost), but the main thread is
/// woken only when a lane ends its job: one wake-up per sample, not one
/// per GPU.
struct Mailbox<T> {
    /// (lane, sample number, GPU, value).
    answers: Vec<(usize, u64, usize, T)>,
    /// (lane, sample number) of jobs that ended, read through or cut short.
    ended: Vec<(usize, u64)>,
}

type Hub<T> = Arc<(Mutex<Mailbox<T>>, Condvar)>;

fn lock<T>(hub: &Hub<T>) -> MutexGuard<'_, Mailbox<T>> {
    hub.0.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Lane {
    /// Work for the lane: a sample number and the GPUs to read, in order.
    jobs: Sender<(u64, Vec<usize>)>,
    /// The GPUs this lane serves.
    gpus: Vec<usize>,
    /// GPUs of the current sample not answered yet, in reading order.
    pending: Vec<usize>,
    /// Stuck in a call that missed a deadline; not asked again until the
    /// answer comes back.
    stuck: bool,
    /// The lane skips the rest of any job whose sample number is below this.
    cancel: Arc<AtomicU64>,
}

/// Reads GPUs on worker threads, each sample under a deadline.
pub struct PerGpu<T> {
    lanes: Vec<Lane>,
    make: Arc<Make<T>>,
    hub: Hub<T>,
    limit: Duration,
    sample: u64,
    n: usize,
}

impl<T: Send + 'static> PerGpu<T> {
    /// Prepare to read `n` GPUs; `make(i)` builds GPU `i`'s job on the
    /// thread that will run it (so the job need not be `Send`).
    pub fn start<F, J>(n: usize, limit: Duration, make: F) -> std::io::Result<Self>
    where
        F: Fn(usize) -> J + Send + Sync + 'static,
        J: FnMut() -> T + 'static,
    {
        let make: Arc<Make<T>> = Arc::new(move |i| Box::new(make(i)) as Box<dyn FnMut() -> T>);
        let hub = Arc::new((
            Mutex::new(Mailbox {
                answers: Vec::new(),
                ended: Vec::new(),
            }),
            Condvar::new(),
        ));
        let mut p = PerGpu {
            lanes: Vec::new(),
            make,
            hub,
            limit,
            sample: 0,
            n,
        };
        if n > 0 {
            p.add_lane((0..n).collect())?;
        }
        Ok(p)
    }

    fn add_lane(&mut self, gpus: Vec<usize>) -> std::io::Result<usize> {
        let id = self.lanes.len();
        let (jobs, job_rx) = mpsc::channel::<(u64, Vec<usize>)>();
        let cancel = Arc::new(AtomicU64::new(0));
        let (make, hub, stop) = (
            Arc::clone(&self.make),
            Arc::clone(&self.hub),
            Arc::clone(&cancel),
        );
        std::thread::Builder::new()
            .name(format!("nvq-lane-{id}"))
            .spawn(move || {
                let mut built: HashMap<usize, Box<dyn FnMut() -> T>> = HashMap::new();
                while let Ok((sample, gpus)) = job_rx.recv() {
                    for g in gpus {
                        if stop.load(Ordering::Acquire) > sample {
                            break;
                        }
                        let job = built.entry(g).or_insert_with(|| make(g));
                        let value = job();
                        lock(&hub).answers.push((id, sample, g, value));
                    }
                    lock(&hub).ended.push((id, sample));
                    hub.1.notify_one();
                }
            })?;
        self.lanes.push(Lane {
            jobs,
            gpus,
            pending: Vec::new(),
            stuck: false,
            cancel,
        });
        Ok(id)
    }

    /// Read every GPU once. A GPU whose answer misses the deadline (or
    /// whose lane is still stuck in an earlier call) gets `late(i)`.
    pub fn sample(&mut self, mut late: impl FnMut(usize) -> T) -> Vec<T> {
        self.sample += 1;
        let sample = self.sample;
        let mut out: Vec<Option<T>> = (0..self.n).map(|_| None).collect();
        for lane in &mut self.lanes {
            if lane.stuck || lane.gpus.is_empty() {
                continue;
            }
            if lane.jobs.send((sample, lane.gpus.clone())).is_ok() {
                lane.pending = lane.gpus.clone();
            }
        }
        let mut deadline = Instant::now() + self.limit;
        loop {
            let timed_out = {
                let hub = Arc::clone(&self.hub);
                let mut mail = lock(&hub);
                loop {
                    self.take(&mut mail, sample, &mut out);
                    let left = deadline.saturating_duration_since(Instant::now());
                    if !self.waiting() || left.is_zero() {
                        break;
                    }
                    mail = hub
                        .1
                        .wait_timeout(mail, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                self.waiting()
            };
            if !timed_out || !self.unstick(sample) {
                break;
            }
            deadline = Instant::now() + self.limit;
        }
        for lane in &mut self.lanes {
            lane.pending.clear();
        }
        out.into_iter()
            .enumerate()
            .map(|(i, v)| v.unwrap_or_else(|| late(i)))
            .collect()
    }

    /// Is any lane still owing this sample an answer?
    fn waiting(&self) -> bool {
        self.lanes.iter().any(|l| !l.pending.is_empty())
    }

    /// Move what the lanes handed back into `out`.
    fn take(&mut self, mail: &mut Mailbox<T>, sample: u64, out: &mut [Option<T>]) {
        for (lane, s, gpu, value) in mail.answers.drain(..) {
            let Some(l) = self.lanes.get_mut(lane) else {
                continue;
            };
            if s == sample {
                l.pending.retain(|&g| g != gpu);
                if let Some(slot) = out.get_mut(gpu) {
                    *slot = Some(value);
                }
            } else if l.stuck {
                // The call that missed an earlier deadline is back: its
                // answer is stale, the lane is free.
                l.stuck = false;
            }
        }
        for (lane, s) in mail.ended.drain(..) {
            if let Some(l) = self.lanes.get_mut(lane) {
                if s == sample {
                    l.pending.clear();
                }
            }
        }
    }

    /// A deadline passed: every lane still waited for is stuck on the first
    /// GPU it has not answered. It keeps only that GPU; its other GPUs move
    /// to a new lane, which reads the ones this sample still lacks. Returns
    /// whether anything is being read again.
    fn unstick(&mut self, sample: u64) -> bool {
        let mut again = false;
        for id in 0..self.lanes.len() {
            let lane = &mut self.lanes[id];
            let Some(&stuck) = lane.pending.first() else {
                continue;
            };
            let missing: Vec<usize> = lane.pending[1..].to_vec();
            let others: Vec<usize> = lane.gpus.iter().copied().filter(|&g| g != stuck).collect();
            lane.cancel.store(sample + 1, Ordering::Release);
            lane.stuck = true;
            lane.gpus = vec![stuck];
            lane.pending.clear();
            if others.is_empty() {
                continue;
            }
            let Ok(new) = self.add_lane(others) else {
                continue;
            };
            if !missing.is_empty() && self.lanes[new].jobs.send((sample, missing.clone())).is_ok() {
                self.lanes[new].pending = missing;
                again = true;
            }
        }
        again
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn the_limit_is_the_interval_but_at_least_a_second() {
        assert_eq!(limit_for(Duration::from_millis(50)), MIN_LIMIT);
        assert_eq!(limit_for(Duration::from_secs(5)), Duration::from_secs(5));
    }

    #[test]
    fn answers_come_back_in_order() {
        let mut p = PerGpu::start(4, Duration::from_secs(60), |i| {
            let mut n = 0;
            move || {
                n += 1;
                (i, n)
            }
        })
        .unwrap();
        assert_eq!(p.sample(|_| (99, 0)), vec![(0, 1), (1, 1), (2, 1), (3, 1)]);
        assert_eq!(p.sample(|_| (99, 0)), vec![(0, 2), (1, 2), (2, 2), (3, 2)]);
    }

    /// Worker 1 blocks until the test lets it go: the other workers' answers
    /// still come back, worker 1 is late, and it is not asked again until it
    /// has finished; its stale answer is dropped.
    #[test]
    fn healthy_gpus_share_one_lane_and_a_hang_splits_it_once() {
        let gate = Arc::new(Mutex::new(()));
        let g = Arc::clone(&gate);
        let mut p = PerGpu::start(4, Duration::from_millis(20), move |i| {
            let g = Arc::clone(&g);
            move || {
                if i == 2 {
                    drop(g.lock().unwrap());
                }
                i
            }
        })
        .unwrap();
        for _ in 0..3 {
            assert_eq!(p.sample(|_| 99), vec![0, 1, 2, 3]);
        }
        assert_eq!(p.lanes.len(), 1, "one hand-off per sample while all answer");
        let held = gate.lock().unwrap();
        assert_eq!(p.sample(|_| 99), vec![0, 1, 99, 3]);
        assert_eq!(p.sample(|_| 99), vec![0, 1, 99, 3]);
        assert_eq!(
            p.lanes.len(),
            2,
            "the stuck GPU keeps its lane, the rest move once"
        );
        drop(held);
    }

    #[test]
    fn a_stuck_worker_is_late_and_does_not_hold_up_the_others() {
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().unwrap();
        let calls = Arc::new(Mutex::new(vec![0u32; 3]));
        let (g, c) = (Arc::clone(&gate), Arc::clone(&calls));
        let mut p = PerGpu::start(3, Duration::from_millis(20), move |i| {
            let (g, c) = (Arc::clone(&g), Arc::clone(&c));
            move || {
                c.lock().unwrap()[i] += 1;
                if i == 1 {
                    drop(g.lock().unwrap());
                }
                format!("gpu{i}")
            }
        })
        .unwrap();
        let late = |i: usize| format!("late{i}");
        assert_eq!(p.sample(late), ["gpu0", "late1", "gpu2"]);
        assert_eq!(p.sample(late), ["gpu0", "late1", "gpu2"]);
        assert_eq!(
            calls.lock().unwrap()[1],
            1,
            "a busy worker is not asked again"
        );
        drop(held);
        // Worker 1 finishes its old call; wait for it without timing.
        let mut p2 = p;
        let mut got = Vec::new();
        for _ in 0..1000 {
            got = p2.sample(late);
            if got[1] == "gpu1" {
                break;
            }
        }
        assert_eq!(got, ["gpu0", "gpu1", "gpu2"]);
        assert!(
            calls.lock().unwrap()[1] >= 2,
            "the stale answer was not used"
        );
    }
}
