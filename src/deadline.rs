//! A deadline for every sample of a loop, so that one slow or hung GPU does
//! not stall the others.
//!
//! In a loop (`-l`/`-lms`), each selected GPU is read by its own worker
//! thread. A sample waits for the workers at most [`limit_for`] the
//! interval (the interval itself, but never less than one second). A GPU
//! whose answer is not back by then is printed as a late row (`[Timeout]`
//! cells, see `app.rs`), the other GPUs' rows are printed as usual, and the
//! loop goes on. The worker of a late GPU is left to finish its call; until
//! it does, that GPU is not asked again and its rows stay `[Timeout]`; its
//! late answer is dropped (it belongs to a sample already printed). A
//! one-shot query has no deadline: it waits for the driver, as nvidia-smi
//! does.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The shortest deadline: NVML calls on a healthy GPU take microseconds to
/// milliseconds, but a GPU waking up without persistence mode can take a
/// good part of a second.
pub const MIN_LIMIT: Duration = Duration::from_secs(1);

/// How long a sample of a loop with this interval waits for a GPU.
pub fn limit_for(interval: Duration) -> Duration {
    interval.max(MIN_LIMIT)
}

struct Worker<T> {
    jobs: Sender<()>,
    results: Receiver<T>,
    /// Asked for a sample and not answered yet.
    busy: bool,
}

/// One worker thread per GPU (or per any unit of work), each running the
/// job that `make` built for it on that thread.
pub struct PerGpu<T> {
    workers: Vec<Worker<T>>,
    limit: Duration,
}

impl<T: Send + 'static> PerGpu<T> {
    /// Start `n` workers. `make(i)` runs on worker `i`'s thread and returns
    /// the job that thread runs for every sample (the job itself need not
    /// be `Send`: it never leaves its thread).
    pub fn start<F, J>(n: usize, limit: Duration, make: F) -> std::io::Result<Self>
    where
        F: Fn(usize) -> J + Send + Sync + 'static,
        J: FnMut() -> T,
    {
        let make = Arc::new(make);
        let mut workers = Vec::with_capacity(n);
        for i in 0..n {
            let (jobs, job_rx) = mpsc::channel::<()>();
            let (result_tx, results) = mpsc::channel::<T>();
            let make = Arc::clone(&make);
            std::thread::Builder::new()
                .name(format!("nvq-sample-{i}"))
                .spawn(move || {
                    let mut job = make(i);
                    while job_rx.recv().is_ok() {
                        if result_tx.send(job()).is_err() {
                            break;
                        }
                    }
                })?;
            workers.push(Worker {
                jobs,
                results,
                busy: false,
            });
        }
        Ok(PerGpu { workers, limit })
    }

    /// Take one sample: every worker that is free is asked for its answer;
    /// the answers are returned in worker order, `late(i)` standing in for
    /// each worker that did not answer within the limit (or is still busy
    /// with an earlier sample).
    pub fn sample(&mut self, mut late: impl FnMut(usize) -> T) -> Vec<T> {
        let mut asked = vec![false; self.workers.len()];
        for (w, asked) in self.workers.iter_mut().zip(asked.iter_mut()) {
            if w.busy {
                match w.results.try_recv() {
                    // The answer to a sample already printed late: drop it.
                    Ok(_) => w.busy = false,
                    Err(TryRecvError::Empty) => continue,
                    Err(TryRecvError::Disconnected) => continue,
                }
            }
            if w.jobs.send(()).is_ok() {
                w.busy = true;
                *asked = true;
            }
        }
        let deadline = Instant::now() + self.limit;
        let mut out = Vec::with_capacity(self.workers.len());
        for (i, (w, asked)) in self.workers.iter_mut().zip(asked).enumerate() {
            if !asked {
                out.push(late(i));
                continue;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match w.results.recv_timeout(left) {
                Ok(v) => {
                    w.busy = false;
                    out.push(v);
                }
                Err(RecvTimeoutError::Timeout) => out.push(late(i)),
                Err(RecvTimeoutError::Disconnected) => {
                    w.busy = false;
                    out.push(late(i));
                }
            }
        }
        out
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
