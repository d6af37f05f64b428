//! One deadline per sample of a loop, for every NVML call of every GPU, so
//! that hung or slow GPUs never stall the loop or the healthy GPUs.
//!
//! A loop hands [`PerGpu`] one job per part of a sample ("read GPU `i`", or
//! a part that needs no GPU), and for each sample a deadline and a `late`
//! value. The jobs run off the main thread on *lanes*: worker threads that
//! each run their jobs in turn. A job keeps what it looked up (a GPU
//! handle) when it moves from one lane to another.
//!
//! - While every job answers in time, one lane runs them all, so a sample
//!   costs one hand-off between threads, not one per GPU.
//! - Halfway to the deadline, a lane that is in a call is split: it keeps
//!   the job it is in, and every job it has not started gets a lane of its
//!   own and starts at once. So however many GPUs hang in the same sample,
//!   the healthy ones behind them are read before the deadline. A lane that
//!   is in no call (its thread has not run yet: the machine is busy) is not
//!   split: more threads would wait for a CPU just the same.
//! - At the deadline the sample is over: a job that has not answered gets
//!   `late(i)`. A lane in a call keeps only that job and is not asked again
//!   until the call returns; the answer, which belongs to a sample already
//!   printed, is dropped. So never more than one call per job is in flight.
//!   A lane in no call keeps its jobs (they are late too) and is given the
//!   next sample's work once it has caught up.
//! - After a sample, the lanes that answered in time are merged back into
//!   one (the others end), so the hand-offs go back to one per sample.
//! - A lane takes each sample's work from its slot, with the time to start
//!   it. An owner that begins the next sample as soon as the last one is in
//!   ([`PerGpu::begin_at`], with the next tick) lets the lane sleep until the
//!   tick on its own: one wake-up a sample for the lane, one for the owner
//!   when the lane is done ([`PerGpu::poll`], woken through `notify`).
//!
//! Threads: every lane holds at least one job, so there are at most `n`
//! lanes for `n` jobs: one while all answer, and one more per job that is
//! stuck in a call (or too slow for the deadline). The thread of a lane
//! that ends (merged into another) may not have run its last instructions
//! yet when a new lane is wanted, on a machine too busy to run it: a lane
//! is started only while the lanes and such ending threads number fewer
//! than `n` (else its jobs wait with a lane that has them, and are late),
//! so the bound holds for threads, not only lanes, whatever the scheduling.
//!
//! A one-shot query has no deadline: it waits for the driver, as nvidia-smi
//! does, and does not use this module.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The shortest deadline. Each sample waits at most [`limit_for`] its
/// interval; a loop faster than this gives its samples this long (and
/// skips the ticks a hung GPU makes it miss).
pub const MIN_LIMIT: Duration = Duration::from_millis(50);

/// How long after its tick a sample of a loop with this interval waits for
/// its GPUs: nine tenths of the interval (the last tenth is for formatting
/// and writing, so that the next sample starts on its tick), at least
/// [`MIN_LIMIT`].
pub fn limit_for(interval: Duration) -> Duration {
    (interval * 9 / 10).max(MIN_LIMIT)
}

/// The job that reads one part. Only one lane runs it at a time (the
/// lock is never contended; it makes the job movable between lanes).
type Job<T> = Mutex<Box<dyn FnMut() -> T + Send>>;

/// Lock `m`, taking it over from a thread that panicked while holding it
/// (the panic hook ends the process anyway).
pub fn lock<M>(m: &Mutex<M>) -> MutexGuard<'_, M> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the lanes hand back. Answers are put here as each job ends (so the
/// jobs read before a hang are not lost), but the main thread is woken
/// only when a lane has run out of work: one wake-up per sample, not one
/// per GPU.
struct Mailbox<T> {
    /// (lane, sample number, job, value).
    answers: Vec<(u64, u64, usize, T)>,
    /// (lane, sample number) of the work a lane has run out of.
    ended: Vec<(u64, u64)>,
    /// The owner is waiting on the hub's condition variable ([`PerGpu::sample`]):
    /// a lane wakes it only then (an owner woken through `notify` does not
    /// wait there, and waking nobody is still a system call).
    waiting: bool,
}

type Hub<T> = Arc<(Mutex<Mailbox<T>>, Condvar)>;

/// Called by a lane when it has run out of a sample's work, besides the
/// hub's condition variable: an owner that waits on something else (the
/// screen's input) is woken through it and then calls [`PerGpu::poll`].
pub type Notify = Arc<dyn Fn() + Send + Sync>;

/// The sample in progress: begun, not yet over.
struct Pending<T> {
    sample: u64,
    /// When the lanes start it, and when the sample after it will start.
    start: Instant,
    next: Option<Instant>,
    out: Vec<Option<T>>,
    halfway: Instant,
    deadline: Instant,
    split: bool,
}

/// One sample's work for a lane. The lane takes jobs from the front; the
/// main thread may take the rest away (a split). Both under one lock, so a
/// job is either run by this lane or moved, never both.
#[derive(Default)]
struct Work {
    queue: VecDeque<usize>,
    /// The job whose call the lane is in (taken from the queue, not
    /// returned yet); `None` between calls and before the first.
    current: Option<usize>,
}

type Shared = Arc<Mutex<Work>>;

/// A sample's work for a lane, to start at `start`. `next` is when the
/// owner expects to give the lane its next work (a loop's next tick): the
/// lane sleeps until then on its own, so work put in its slot before that
/// needs no wake-up.
struct Order {
    sample: u64,
    work: Shared,
    start: Instant,
    next: Option<Instant>,
}

/// Where a lane takes its work from. The lane waits on the condition
/// variable until `until` (`None`: until woken); the owner wakes it only
/// when an order must start before that.
#[derive(Default)]
struct SlotState {
    order: Option<Order>,
    /// The lane is waiting, until then (`None` inside `Some`: with no time).
    until: Option<Option<Instant>>,
    closed: bool,
}

impl SlotState {
    /// The lane is waiting and would not wake by `start` on its own.
    fn sleeps_past(&self, start: Instant) -> bool {
        self.until.is_some_and(|u| u.map_or(true, |u| start < u))
    }
}

type Slot = Arc<(Mutex<SlotState>, Condvar)>;

struct Lane {
    id: u64,
    slot: Slot,
    /// The jobs this lane serves, in order.
    parts: Vec<usize>,
    /// The work it was last given, until it says it has run out of it.
    busy: Option<Shared>,
    /// The sample number of that work.
    busy_sample: u64,
    /// It ran out of this sample's work before the deadline.
    prompt: bool,
    /// Its thread, joined once the lane has ended and the thread is done.
    thread: Option<JoinHandle<()>>,
}

/// Runs one job per part on worker threads, each sample under a deadline.
pub struct PerGpu<T> {
    lanes: Vec<Lane>,
    jobs: Arc<Vec<Job<T>>>,
    hub: Hub<T>,
    sample: u64,
    next_id: u64,
    n: usize,
    notify: Option<Notify>,
    pending: Option<Pending<T>>,
    /// The threads of lanes that ended, until they are done.
    ending: Vec<JoinHandle<()>>,
}

impl<T: Send + 'static> PerGpu<T> {
    /// Prepare to run these jobs, one per part of a sample. A job runs only
    /// on a lane, so whatever it looks up on its first run (a GPU handle)
    /// is looked up under a deadline too.
    pub fn start<J>(jobs: Vec<J>) -> std::io::Result<Self>
    where
        J: FnMut() -> T + Send + 'static,
    {
        Self::start_notifying(jobs, None)
    }

    /// [`PerGpu::start`], and the lanes call `notify` each time one has run
    /// out of a sample's work (for an owner that uses [`PerGpu::begin`] and
    /// [`PerGpu::poll`] and waits on its own channel).
    pub fn start_notifying<J>(jobs: Vec<J>, notify: Option<Notify>) -> std::io::Result<Self>
    where
        J: FnMut() -> T + Send + 'static,
    {
        let n = jobs.len();
        let jobs: Arc<Vec<Job<T>>> = Arc::new(
            jobs.into_iter()
                .map(|j| Mutex::new(Box::new(j) as Box<dyn FnMut() -> T + Send>))
                .collect(),
        );
        let hub = Arc::new((
            Mutex::new(Mailbox {
                answers: Vec::new(),
                ended: Vec::new(),
                waiting: false,
            }),
            Condvar::new(),
        ));
        let mut p = PerGpu {
            lanes: Vec::new(),
            jobs,
            hub,
            sample: 0,
            next_id: 0,
            n,
            notify,
            pending: None,
            ending: Vec::new(),
        };
        if n > 0 {
            p.add_lane((0..n).collect())?;
        }
        Ok(p)
    }

    /// How many lane threads there are now (tests, and the bound in
    /// `docs/loops.md`).
    pub fn threads(&self) -> usize {
        self.lanes.len()
    }

    /// The lanes' threads and those of ended lanes not yet done (joining
    /// those that are).
    fn live_threads(&mut self) -> usize {
        let (done, running): (Vec<_>, Vec<_>) = std::mem::take(&mut self.ending)
            .into_iter()
            .partition(JoinHandle::is_finished);
        for t in done {
            let _ = t.join();
        }
        self.ending = running;
        self.lanes.len() + self.ending.len()
    }

    /// Start a lane for these jobs, unless that would make more than one
    /// thread per job ([`PerGpu::live_threads`]): then, or when no thread
    /// can be started, an error, and the caller keeps the jobs elsewhere.
    fn add_lane(&mut self, parts: Vec<usize>) -> std::io::Result<usize> {
        if self.live_threads() >= self.n.max(1) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                "one thread per job already",
            ));
        }
        let id = self.next_id;
        let slot: Slot = Arc::new((
            Mutex::new(SlotState {
                until: Some(None),
                ..SlotState::default()
            }),
            Condvar::new(),
        ));
        let (all, hub, lane_slot) = (
            Arc::clone(&self.jobs),
            Arc::clone(&self.hub),
            Arc::clone(&slot),
        );
        let notify = self.notify.clone();
        let thread = std::thread::Builder::new()
            .name(format!("nvq-lane-{id}"))
            .spawn(move || {
                let mut next: Option<Instant> = None;
                while let Some(order) = take_order(&lane_slot, next) {
                    next = order.next;
                    let (sample, work) = (order.sample, order.work);
                    loop {
                        let next = {
                            let mut w = lock(&work);
                            w.current = w.queue.pop_front();
                            w.current
                        };
                        let Some(g) = next else { break };
                        let Some(job) = all.get(g) else { continue };
                        let value = (lock(job))();
                        lock(&work).current = None;
                        lock(&hub.0).answers.push((id, sample, g, value));
                    }
                    let waiting = {
                        let mut mail = lock(&hub.0);
                        mail.ended.push((id, sample));
                        mail.waiting
                    };
                    if waiting {
                        hub.1.notify_one();
                    }
                    if let Some(notify) = &notify {
                        notify();
                    }
                }
            })?;
        self.next_id += 1;
        self.lanes.push(Lane {
            id,
            slot,
            parts,
            busy: None,
            busy_sample: 0,
            prompt: false,
            thread: Some(thread),
        });
        Ok(self.lanes.len() - 1)
    }

    /// Give lane `l` this sample's work: its parts, in order.
    fn send(&mut self, l: usize, sample: u64) {
        let (start, next) = self
            .pending
            .as_ref()
            .map_or((Instant::now(), None), |p| (p.start, p.next));
        let lane = &mut self.lanes[l];
        let work = Arc::new(Mutex::new(Work {
            queue: lane.parts.iter().copied().collect(),
            current: None,
        }));
        put_order(
            &lane.slot,
            Order {
                sample,
                work: Arc::clone(&work),
                start,
                next,
            },
        );
        lane.busy = Some(work);
        lane.busy_sample = sample;
    }

    /// Run every job once, by `deadline`. A job that has not answered by
    /// then (or whose lane is still in an earlier call) gets `late(i)`.
    pub fn sample(&mut self, deadline: Instant, mut late: impl FnMut(usize) -> T) -> Vec<T> {
        self.begin(deadline);
        loop {
            if let Some(values) = self.poll(&mut late) {
                return values;
            }
            let Some(until) = self.wake_at() else {
                return Vec::new();
            };
            // Sleep until a lane runs out of work or `until` passes; what a
            // lane handed back before this lock is seen here, not lost.
            let hub = Arc::clone(&self.hub);
            let mut mail = lock(&hub.0);
            let left = until.saturating_duration_since(Instant::now());
            if mail.ended.is_empty() && !left.is_zero() {
                mail.waiting = true;
                let (mut mail, _) = hub
                    .1
                    .wait_timeout(mail, left)
                    .unwrap_or_else(PoisonError::into_inner);
                mail.waiting = false;
            }
        }
    }

    /// Start a sample that is over by `deadline`, without waiting for it:
    /// the owner calls [`PerGpu::poll`] when notified and at
    /// [`PerGpu::wake_at`]. A sample still pending is ended first.
    pub fn begin(&mut self, deadline: Instant) {
        self.begin_at(Instant::now(), deadline, None);
    }

    /// [`PerGpu::begin`] for a sample that the lanes start at `start` (now
    /// or later) on their own, by `deadline`; `next`: when the sample after
    /// it will start. A loop that begins each sample as soon as the one
    /// before is over, with the next tick as `start`, costs each lane one
    /// wake-up a sample (its own timer), not one for the work and one for
    /// the timer.
    pub fn begin_at(&mut self, start: Instant, deadline: Instant, next: Option<Instant>) {
        if self.pending.take().is_some() {
            self.settle();
        }
        self.sample += 1;
        let sample = self.sample;
        let mut out: Vec<Option<T>> = (0..self.n).map(|_| None).collect();
        // Lanes whose call has returned since the last sample are free again.
        {
            let hub = Arc::clone(&self.hub);
            let mut mail = lock(&hub.0);
            self.take(&mut mail, sample, &mut out);
        }
        self.pending = Some(Pending {
            sample,
            start,
            next,
            out,
            halfway: start + deadline.saturating_duration_since(start) / 2,
            deadline,
            split: false,
        });
        for l in 0..self.lanes.len() {
            self.lanes[l].prompt = false;
            if self.lanes[l].busy.is_none() && !self.lanes[l].parts.is_empty() {
                self.send(l, sample);
            }
        }
    }

    /// Move the sample in progress, if no lane has started it yet, to start
    /// at `start` and be over by `deadline` (a loop whose interval changed);
    /// returns whether it moved.
    pub fn reschedule(&mut self, start: Instant, deadline: Instant, next: Option<Instant>) -> bool {
        let Some(p) = self.pending.as_mut() else {
            return false;
        };
        let mut moved = true;
        for lane in self
            .lanes
            .iter()
            .filter(|l| l.busy_sample == p.sample && l.busy.is_some())
        {
            let mut st = lock(&lane.slot.0);
            match st.order.as_mut() {
                Some(o) if o.sample == p.sample => {
                    o.start = start;
                    o.next = next;
                    if st.sleeps_past(start) {
                        lane.slot.1.notify_one();
                    }
                }
                _ => moved = false,
            }
        }
        if moved {
            (p.start, p.next, p.deadline) = (start, next, deadline);
            p.halfway = start + deadline.saturating_duration_since(start) / 2;
        }
        moved
    }

    /// When the sample in progress must be looked at even if no lane says
    /// anything: halfway to its deadline (to split), then the deadline.
    pub fn wake_at(&self) -> Option<Instant> {
        self.pending
            .as_ref()
            .map(|p| if p.split { p.deadline } else { p.halfway })
    }

    /// Take what the lanes handed back; the sample's values once every lane
    /// has run out of its work or the deadline has passed (a job that has
    /// not answered gets `late(i)`), `None` while it is still going (and
    /// when no sample was begun). Halfway to the deadline, a lane still at
    /// work is split.
    pub fn poll(&mut self, mut late: impl FnMut(usize) -> T) -> Option<Vec<T>> {
        let mut p = self.pending.take()?;
        {
            let hub = Arc::clone(&self.hub);
            let mut mail = lock(&hub.0);
            self.take(&mut mail, p.sample, &mut p.out);
        }
        let now = Instant::now();
        if self.working(p.sample) && now < p.deadline {
            if !p.split && now >= p.halfway {
                self.split(p.sample);
                p.split = true;
            }
            self.pending = Some(p);
            return None;
        }
        self.settle();
        Some(
            p.out
                .into_iter()
                .enumerate()
                .map(|(i, v)| v.unwrap_or_else(|| late(i)))
                .collect(),
        )
    }

    /// Is a lane still at this sample's work?
    fn working(&self, sample: u64) -> bool {
        self.lanes
            .iter()
            .any(|l| l.busy.is_some() && l.busy_sample == sample)
    }

    /// Move what the lanes handed back into `out`.
    fn take(&mut self, mail: &mut Mailbox<T>, sample: u64, out: &mut [Option<T>]) {
        for (_, s, g, value) in mail.answers.drain(..) {
            // An answer to an earlier sample is stale: it was printed late.
            if s == sample {
                if let Some(slot) = out.get_mut(g) {
                    *slot = Some(value);
                }
            }
        }
        for (id, s) in mail.ended.drain(..) {
            if let Some(l) = self.lanes.iter_mut().find(|l| l.id == id) {
                if l.busy.is_some() && l.busy_sample == s {
                    l.busy = None;
                    l.prompt = s == sample;
                }
            }
        }
    }

    /// Halfway to the deadline: every lane in a call keeps the job it is
    /// in and the jobs it has done; each job it has not started gets a lane
    /// of its own and starts now. A lane in no call is left as it is.
    fn split(&mut self, sample: u64) {
        for l in 0..self.lanes.len() {
            let rest: Vec<usize> = match &self.lanes[l].busy {
                Some(work) if self.lanes[l].busy_sample == sample => {
                    let mut w = lock(work);
                    if w.current.is_none() {
                        continue;
                    }
                    w.queue.drain(..).collect()
                }
                _ => continue,
            };
            self.lanes[l].parts.retain(|p| !rest.contains(p));
            for g in rest {
                match self.add_lane(vec![g]) {
                    Ok(new) => self.send(new, sample),
                    // No thread: the job stays with its lane, late this
                    // sample, and is read when the lane is free again.
                    Err(_) => self.lanes[l].parts.push(g),
                }
            }
            self.lanes[l].parts.sort_unstable();
        }
    }

    /// After the deadline: a lane still in a call keeps only that job (its
    /// other jobs, done or not started, move); a lane at work but in no call
    /// keeps its jobs, and stops (what it has not started is taken away);
    /// the lanes that answered in time become one; lanes left without jobs
    /// end.
    fn settle(&mut self) {
        let mut homeless: Vec<usize> = Vec::new();
        for lane in &mut self.lanes {
            let Some(work) = &lane.busy else { continue };
            let mut w = lock(work);
            w.queue.clear();
            let Some(current) = w.current else { continue };
            drop(w);
            homeless.extend(lane.parts.iter().filter(|&&p| p != current));
            lane.parts = vec![current];
        }
        let prompt: Vec<usize> = (0..self.lanes.len())
            .filter(|&l| self.lanes[l].prompt && self.lanes[l].busy.is_none())
            .collect();
        if let Some((&home, others)) = prompt.split_first() {
            for &l in others {
                homeless.append(&mut self.lanes[l].parts);
            }
            self.lanes[home].parts.append(&mut homeless);
            self.lanes[home].parts.sort_unstable();
        } else if !homeless.is_empty() {
            homeless.sort_unstable();
            if self.add_lane(homeless.clone()).is_err() {
                // No thread: the jobs wait with a lane, one in no call if
                // there is one (it is free soonest), and are late until it
                // is; the next sample's settling tries again. (They come
                // from a lane that keeps its call's job, so there is one.)
                let free = self
                    .lanes
                    .iter()
                    .position(|l| l.busy.as_ref().map_or(true, |w| lock(w).current.is_none()));
                if let Some(l) = free.or((!self.lanes.is_empty()).then_some(0)) {
                    self.lanes[l].parts.append(&mut homeless);
                    self.lanes[l].parts.sort_unstable();
                }
            }
        }
        // A lane without jobs ends (it is not at work: its thread ends when
        // it next wakes); the thread is joined once it is done.
        let (keep, gone): (Vec<Lane>, Vec<Lane>) = std::mem::take(&mut self.lanes)
            .into_iter()
            .partition(|l| !l.parts.is_empty() || l.busy.is_some());
        self.lanes = keep;
        for mut lane in gone {
            self.ending.extend(lane.thread.take());
        }
    }
}

impl Drop for Lane {
    /// The lane's thread ends once it is out of its call.
    fn drop(&mut self) {
        lock(&self.slot.0).closed = true;
        self.slot.1.notify_one();
    }
}

/// Put `order` in a lane's slot; wake the lane only if it would otherwise
/// sleep past the order's start.
fn put_order(slot: &Slot, order: Order) {
    let start = order.start;
    let mut st = lock(&slot.0);
    st.order = Some(order);
    let late = st.sleeps_past(start);
    drop(st);
    if late {
        slot.1.notify_one();
    }
}

/// The lane's next order, once its start has come (`None`: the lane is to
/// end). With no order, the lane sleeps until `next` (when the owner said
/// its next work would start), then until woken.
fn take_order(slot: &Slot, mut next: Option<Instant>) -> Option<Order> {
    let mut st = lock(&slot.0);
    loop {
        if st.closed {
            return None;
        }
        let now = Instant::now();
        let until = match &st.order {
            Some(o) if o.start <= now => {
                st.until = None;
                return st.order.take();
            }
            Some(o) => Some(o.start),
            None => next.filter(|t| *t > now),
        };
        st.until = Some(until);
        st = match until {
            Some(t) => {
                slot.1
                    .wait_timeout(st, t.saturating_duration_since(now))
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => slot.1.wait(st).unwrap_or_else(PoisonError::into_inner),
        };
        // The expected time has passed: from now on, wait to be woken.
        if next.is_some_and(|t| t <= Instant::now()) {
            next = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    /// A deadline the hung jobs (held by a lock) always miss and the others
    /// meet even on a loaded machine (with 40 ms, under the whole suite on
    /// 8 threads, the free jobs were sometimes late too).
    fn soon() -> Instant {
        Instant::now() + Duration::from_millis(400)
    }

    #[test]
    fn the_limit_is_most_of_the_interval_but_not_too_short() {
        assert_eq!(limit_for(Duration::from_millis(10)), MIN_LIMIT);
        assert_eq!(
            limit_for(Duration::from_millis(100)),
            Duration::from_millis(90)
        );
        assert_eq!(
            limit_for(Duration::from_secs(5)),
            Duration::from_millis(4500)
        );
    }

    #[test]
    fn answers_come_back_in_order() {
        let jobs = (0..4)
            .map(|i| {
                let mut n = 0;
                move || {
                    n += 1;
                    (i, n)
                }
            })
            .collect();
        let mut p = PerGpu::start(jobs).unwrap();
        assert_eq!(
            p.sample(far(), |_| (99, 0)),
            vec![(0, 1), (1, 1), (2, 1), (3, 1)]
        );
        assert_eq!(
            p.sample(far(), |_| (99, 0)),
            vec![(0, 2), (1, 2), (2, 2), (3, 2)]
        );
        assert_eq!(p.threads(), 1);
    }

    /// `n` jobs that count their calls; those `hung` says block while the
    /// gate is held; each answers `value(i)`.
    #[allow(clippy::type_complexity)]
    fn gated<T: Send + 'static>(
        n: usize,
        hung: fn(usize) -> bool,
        value: fn(usize) -> T,
    ) -> (
        Arc<Mutex<()>>,
        Arc<Mutex<Vec<u32>>>,
        Vec<impl FnMut() -> T + Send + 'static>,
    ) {
        let gate = Arc::new(Mutex::new(()));
        let calls = Arc::new(Mutex::new(vec![0u32; n]));
        let jobs = (0..n)
            .map(|i| {
                let (g, c) = (Arc::clone(&gate), Arc::clone(&calls));
                move || {
                    c.lock().unwrap()[i] += 1;
                    if hung(i) {
                        drop(g.lock().unwrap());
                    }
                    value(i)
                }
            })
            .collect();
        (gate, calls, jobs)
    }

    /// Jobs 1, 2 and 3 block until the test lets them go: the jobs behind
    /// them still answer in the same sample, the blocked ones are late and
    /// not asked again while their call is in flight, one thread each.
    #[test]
    fn hung_jobs_do_not_hold_up_the_others_and_cost_one_thread_each() {
        let (gate, calls, jobs) = gated(6, |i| (1..=3).contains(&i), |i| format!("gpu{i}"));
        let mut p = PerGpu::start(jobs).unwrap();
        let late = |i: usize| format!("late{i}");
        assert_eq!(
            p.sample(far(), late),
            ["gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5"]
        );
        let held = gate.lock().unwrap();
        let want = ["gpu0", "late1", "late2", "late3", "gpu4", "gpu5"];
        assert_eq!(p.sample(soon(), late), want);
        assert_eq!(p.sample(soon(), late), want);
        assert_eq!(p.threads(), 4, "one lane per hung job, one for the rest");
        assert_eq!(
            calls.lock().unwrap()[1..4],
            [2, 2, 2],
            "a busy job is not asked again"
        );
        drop(held);
        // The released calls return when their threads next run, which on a
        // loaded machine can take a while: wait for it, not for a count.
        let mut got = Vec::new();
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            got = p.sample(far(), late);
            if got.iter().all(|v| v.starts_with("gpu")) {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(got, ["gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5"]);
        p.sample(far(), late);
        assert_eq!(p.threads(), 1, "the lanes that answer become one again");
    }

    /// Wait for a begun sample as an owner that polls does: poll until it
    /// is over, sleeping a little in between.
    fn poll_until_done(p: &mut PerGpu<(usize, Instant)>) -> Vec<(usize, Instant)> {
        loop {
            // A late job reads as its index plus 100.
            if let Some(v) = p.poll(|i| (i + 100, Instant::now())) {
                return v;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A sample begun ahead of its tick is read at the tick, not before, by
    /// the lane on its own; one moved to an earlier tick is read then.
    #[test]
    fn a_sample_begun_ahead_starts_on_its_tick() {
        let jobs = (0..3).map(|i| move || (i, Instant::now())).collect();
        let mut p = PerGpu::start(jobs).unwrap();
        let tick = Instant::now() + Duration::from_millis(150);
        p.begin_at(
            tick,
            tick + Duration::from_secs(30),
            Some(tick + Duration::from_secs(1)),
        );
        assert!(
            p.poll(|i| (i + 100, Instant::now())).is_none(),
            "not over before its tick"
        );
        assert_eq!(
            p.wake_at(),
            Some(tick + Duration::from_secs(15)),
            "halfway from its tick"
        );
        let got = poll_until_done(&mut p);
        assert_eq!(got.iter().map(|v| v.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert!(got.iter().all(|v| v.1 >= tick), "read before the tick");
        // The next sample, an hour ahead, moved to now: read at once.
        let hour = Instant::now() + Duration::from_secs(3600);
        p.begin_at(hour, hour + Duration::from_secs(30), None);
        let now = Instant::now();
        assert!(p.reschedule(now, now + Duration::from_secs(30), None));
        let got = poll_until_done(&mut p);
        assert!(got.iter().all(|v| v.1 >= now && v.1 < hour), "{got:?}");
        assert_eq!(p.threads(), 1);
    }

    /// A job stuck in a call while later samples are begun ahead is never
    /// called again before it returns, and the others still answer.
    #[test]
    fn a_hung_job_is_not_called_twice_when_samples_are_begun_ahead() {
        let (gate, calls, jobs) = gated(3, |i| i == 1, |i| (i, Instant::now()));
        let mut p = PerGpu::start(jobs).unwrap();
        let held = gate.lock().unwrap();
        for n in 0..4 {
            let tick = Instant::now() + Duration::from_millis(20);
            let next = tick + Duration::from_millis(420);
            p.begin_at(tick, tick + Duration::from_millis(400), Some(next));
            let got = poll_until_done(&mut p);
            let answered: Vec<bool> = got.iter().map(|v| v.0 < 100).collect();
            assert_eq!(answered, [true, false, true], "sample {n}: {got:?}");
        }
        assert_eq!(calls.lock().unwrap()[1], 1, "the stuck job was asked again");
        assert_eq!(
            p.threads(),
            2,
            "one lane for the stuck job, one for the rest"
        );
        drop(held);
    }

    /// Lanes whose threads have not run by the deadline (a machine too
    /// busy to run them; here their work starts after the deadline) are not
    /// replaced by new ones sample after sample: one lane keeps the jobs,
    /// late, until it has run.
    #[test]
    fn a_lane_that_has_not_run_is_not_replaced() {
        let jobs = (0..8).map(|i| move || i).collect();
        let mut p = PerGpu::start(jobs).unwrap();
        for n in 0..12 {
            let now = Instant::now();
            let hour = now + Duration::from_secs(3600);
            p.begin_at(hour, now + Duration::from_millis(20), None);
            let got = loop {
                if let Some(v) = p.poll(|i| i + 100) {
                    break v;
                }
                std::thread::sleep(Duration::from_millis(2));
            };
            assert_eq!(got, (100..108).collect::<Vec<_>>(), "sample {n}");
            assert_eq!(p.threads(), 1, "sample {n}: lanes were added");
        }
    }
}
