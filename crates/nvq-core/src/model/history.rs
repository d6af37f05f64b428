//! The sampled values of a run, kept in memory: one bounded ring of points
//! per series (a GPU or one process on one GPU) and field.
//!
//! Leaf data: no I/O, no clock. The loops push what they sampled; the trend
//! (`model::trend`), `--summary`, the scripting language's `rate()` and
//! `time_to_full()`, `nvq top` and `nvq plot` read it. Memory is bounded:
//! each series keeps its last `cap` points, and [`History::forget_older_than`]
//! drops the series of processes that went away.

use std::collections::VecDeque;

/// Which series: a GPU (by UUID, stable whatever -i says) or one process on one GPU.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SeriesKey {
    /// A whole GPU's series.
    Gpu {
        /// The GPU's UUID (`GPU-…`).
        uuid: String,
    },
    /// One process's series on one GPU.
    Process {
        /// The UUID of the GPU the process uses.
        gpu_uuid: String,
        /// The process's PID.
        pid: u32,
        /// The process's start time (field 22 of `/proc/<pid>/stat`, clock ticks since boot; 0 when unknown),
        /// so a reused PID is a new process.
        start: u64,
    },
}

impl SeriesKey {
    /// The UUID of the GPU the series belongs to.
    pub fn gpu_uuid(&self) -> &str {
        match self {
            SeriesKey::Gpu { uuid } => uuid,
            SeriesKey::Process { gpu_uuid, .. } => gpu_uuid,
        }
    }
}

/// One sampled value: `t` in seconds since the UNIX epoch, `v` in the field's base unit (bytes for memory, percent
/// for utilization, W, °C, ...).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// When it was sampled, seconds since the UNIX epoch.
    pub t: f64,
    /// The value, in the field's base unit.
    pub v: f64,
}

/// A bounded ring of the last `cap` points of one series (oldest dropped first).
#[derive(Clone, Debug)]
pub struct Series {
    points: VecDeque<Point>,
    cap: usize,
    /// The time of the newest point (-inf while empty), so a push need not read the ring's back.
    last_t: f64,
    /// How many neighbouring points are out of time order (a clock stepped back): 0 lets the trend stop reading
    /// at the end of what it needs.
    disorder: usize,
}

impl Series {
    /// An empty series that keeps at most `cap` points (at least one).
    pub fn with_cap(cap: usize) -> Self {
        let cap = cap.max(1);
        Series {
            // Grown as points come, so a short run or a series that stops early costs little.
            points: VecDeque::with_capacity(cap.min(64)),
            cap,
            last_t: f64::NEG_INFINITY,
            disorder: 0,
        }
    }

    /// Append a point, dropping the oldest when full. A point that is not a
    /// number is ignored: a series only holds values.
    #[inline]
    pub fn push(&mut self, p: Point) {
        if !(p.t.is_finite() && p.v.is_finite()) {
            return;
        }
        if self.points.len() == self.cap {
            self.drop_oldest();
        }
        self.disorder += usize::from(p.t < self.last_t);
        self.last_t = p.t;
        self.points.push_back(p);
    }

    /// Drop the oldest point to make room (a full ring; once the newest is gone too, order starts again).
    fn drop_oldest(&mut self) {
        if let (Some(a), Some(b)) = (self.points.pop_front(), self.points.front()) {
            self.disorder -= usize::from(b.t < a.t);
        }
        if self.points.is_empty() {
            self.last_t = f64::NEG_INFINITY;
        }
    }

    /// Whether every point is at or after the one before it (a loop's clock did not step back).
    pub fn in_order(&self) -> bool {
        self.disorder == 0
    }

    /// The points, oldest first (`.rev()` for newest first).
    pub fn points(&self) -> impl DoubleEndedIterator<Item = Point> + ExactSizeIterator + '_ {
        self.points.iter().copied()
    }

    /// The newest point.
    pub fn last(&self) -> Option<Point> {
        self.points.back().copied()
    }

    /// The oldest point kept.
    pub fn first(&self) -> Option<Point> {
        self.points.front().copied()
    }

    /// How many points the series holds now (at most [`Series::cap`]).
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether the series holds no point yet.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The most points the series keeps.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// The point at `i` (0: oldest).
    pub fn get(&self, i: usize) -> Option<Point> {
        self.points.get(i).copied()
    }
}

/// Every series of a run, keyed by (series, field name). `field` is the `--query-gpu` / list-mode field name as the
/// registry spells it ("memory.used", "utilization.gpu", "used_gpu_memory"): a `&'static str` taken from the
/// field table, so it costs no allocation per sample.
#[derive(Clone, Debug)]
pub struct History {
    cap: usize,
    /// Per series, in key order, its fields (a handful: a linear search beats hashing).
    series: Vec<(SeriesKey, Vec<(&'static str, Series)>)>,
    /// The place after the series pushed last: a loop pushes its series in the same order every sample, so
    /// the next one is most often there, found with one comparison instead of a search.
    next: usize,
}

impl History {
    /// The points per series kept when the caller does not say: an hour at one sample a second.
    pub const DEFAULT_CAP: usize = 3600;

    /// An empty history whose series keep at most `cap_per_series` points each (at least one).
    pub fn new(cap_per_series: usize) -> Self {
        History {
            cap: cap_per_series.max(1),
            series: Vec::new(),
            next: 0,
        }
    }

    /// The place of `key`'s series, made (empty) if new; remembered for the next push.
    fn slot(&mut self, key: &SeriesKey) -> usize {
        let at = match self.series.get(self.next) {
            Some((k, _)) if k == key => self.next,
            _ => match self.series.binary_search_by(|(k, _)| k.cmp(key)) {
                Ok(at) => at,
                Err(at) => {
                    // Only a new series clones its key.
                    self.series.insert(at, (key.clone(), Vec::new()));
                    at
                }
            },
        };
        self.next = at + 1;
        at
    }

    /// The fields of `key`'s series, made if new.
    fn fields_mut(&mut self, key: &SeriesKey) -> &mut Vec<(&'static str, Series)> {
        let at = self.slot(key);
        // `slot` gives the place of a series it found or just inserted: always in range.
        &mut self.series[at].1
    }

    /// The most points each series keeps.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Append one point to the series of `key` and `field`, creating it if new; see [`Series::push`].
    pub fn push(&mut self, key: &SeriesKey, field: &'static str, p: Point) {
        let cap = self.cap;
        let fields = self.fields_mut(key);
        match fields.iter_mut().find(|(f, _)| same_name(f, field)) {
            Some((_, s)) => s.push(p),
            None => {
                let mut s = Series::with_cap(cap);
                s.push(p);
                fields.push((field, s));
            }
        }
    }

    /// Push one sample's points of one series: the series is looked up once,
    /// and each field first where it was on the sample before (a loop
    /// records the same fields in the same order every sample), so a row
    /// costs one key lookup, not one per field.
    pub fn push_row(
        &mut self,
        key: &SeriesKey,
        points: impl IntoIterator<Item = (&'static str, Point)>,
    ) {
        let cap = self.cap;
        let fields = self.fields_mut(key);
        for (i, (field, p)) in points.into_iter().enumerate() {
            let at = match fields.get(i) {
                Some((f, _)) if same_name(f, field) => Some(i),
                _ => fields.iter().position(|(f, _)| same_name(f, field)),
            };
            match at.and_then(|j| fields.get_mut(j)) {
                Some((_, s)) => s.push(p),
                None => {
                    let mut s = Series::with_cap(cap);
                    s.push(p);
                    fields.push((field, s));
                }
            }
        }
    }

    /// The series of `key` and `field`; `None` when nothing was pushed to it.
    pub fn series(&self, key: &SeriesKey, field: &str) -> Option<&Series> {
        let at = self.series.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
        self.series
            .get(at)?
            .1
            .iter()
            .find(|(f, _)| same_name(f, field))
            .map(|(_, s)| s)
    }

    /// Every (series, field) pair, series in key order (GPUs before processes), fields in the order they came.
    pub fn keys(&self) -> impl Iterator<Item = (&SeriesKey, &'static str)> + '_ {
        self.series
            .iter()
            .flat_map(|(k, fields)| fields.iter().map(move |(f, _)| (k, *f)))
    }

    /// The number of series (keys), whatever their fields.
    pub fn series_count(&self) -> usize {
        self.series.len()
    }

    /// Forget series whose newest point is older than `t` (processes that exited), so memory stays bounded.
    pub fn forget_older_than(&mut self, t: f64) {
        self.series.retain_mut(|(_, fields)| {
            fields.retain(|(_, s)| s.last().is_some_and(|p| p.t >= t));
            !fields.is_empty()
        });
    }
}

impl Default for History {
    fn default() -> Self {
        History::new(History::DEFAULT_CAP)
    }
}

fn same_name(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(u: &str) -> SeriesKey {
        SeriesKey::Gpu {
            uuid: u.to_string(),
        }
    }

    /// Process `pid`, started at `start`, on GPU `GPU-a`.
    fn process(pid: u32, start: u64) -> SeriesKey {
        SeriesKey::Process {
            gpu_uuid: "GPU-a".into(),
            pid,
            start,
        }
    }

    /// A row pushed at once lands where field-by-field pushes put it, also
    /// when a sample skips a field (a cell with no number) or reorders them.
    #[test]
    fn a_pushed_row_equals_its_points_pushed_one_by_one() {
        let (mut rows, mut one) = (History::new(4), History::new(4));
        let samples: [&[(&'static str, f64)]; 4] = [
            &[
                ("memory.used", 1.0),
                ("utilization.gpu", 5.0),
                ("power.draw", 70.0),
            ],
            &[("memory.used", 2.0), ("power.draw", 71.0)],
            &[
                ("power.draw", 72.0),
                ("memory.used", 3.0),
                ("utilization.gpu", 6.0),
            ],
            &[
                ("memory.used", 4.0),
                ("utilization.gpu", 7.0),
                ("fan.speed", 30.0),
            ],
        ];
        for (t, sample) in samples.iter().enumerate() {
            let t = t as f64;
            rows.push_row(
                &gpu("GPU-a"),
                sample.iter().map(|&(f, v)| (f, Point { t, v })),
            );
            for &(f, v) in *sample {
                one.push(&gpu("GPU-a"), f, Point { t, v });
            }
        }
        let all = |h: &History| {
            h.keys()
                .map(|(k, f)| {
                    (
                        k.clone(),
                        f,
                        h.series(k, f)
                            .unwrap()
                            .points()
                            .map(|p| (p.t, p.v))
                            .collect::<Vec<_>>(),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(all(&rows), all(&one));
        assert_eq!(rows.series(&gpu("GPU-a"), "memory.used").unwrap().len(), 4);
        assert_eq!(
            rows.series(&gpu("GPU-a"), "utilization.gpu").unwrap().len(),
            3
        );
    }

    /// Series pushed in any order (a loop's usual order, then another, new ones between, some forgotten) are
    /// found by their keys, listed in key order, each with exactly its own points.
    #[test]
    fn series_are_found_whatever_order_they_are_pushed_in() {
        use std::collections::BTreeMap;
        let mut h = History::new(100);
        let mut want: BTreeMap<SeriesKey, Vec<(f64, f64)>> = BTreeMap::new();
        let keys: Vec<SeriesKey> = ["GPU-c", "GPU-a", "GPU-d", "GPU-b"]
            .into_iter()
            .map(gpu)
            .collect();
        let orders: [&[usize]; 5] = [&[0, 1, 2], &[0, 1, 2], &[2, 1, 0], &[3, 0, 1, 2], &[1, 3]];
        for (t, order) in orders.iter().enumerate() {
            let t = t as f64;
            if t == 4.0 {
                h.forget_older_than(3.0);
                want.retain(|_, p| p.last().is_some_and(|p| p.0 >= 3.0));
            }
            for &k in *order {
                let v = t * 10.0 + k as f64;
                h.push_row(&keys[k], [("memory.used", Point { t, v })]);
                want.entry(keys[k].clone()).or_default().push((t, v));
            }
        }
        let got: Vec<(SeriesKey, Vec<(f64, f64)>)> = h
            .keys()
            .map(|(k, f)| {
                let s = h.series(k, f).unwrap();
                (k.clone(), s.points().map(|p| (p.t, p.v)).collect())
            })
            .collect();
        assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        assert!(h.series(&gpu("GPU-e"), "memory.used").is_none());
    }

    #[test]
    fn ring_keeps_the_newest_cap_points_oldest_first() {
        let mut h = History::new(3);
        for i in 0..5 {
            h.push(
                &gpu("GPU-a"),
                "memory.used",
                Point {
                    t: f64::from(i),
                    v: f64::from(i * 10),
                },
            );
        }
        let s = h.series(&gpu("GPU-a"), "memory.used").unwrap();
        assert_eq!(s.len(), 3);
        let vs: Vec<f64> = s.points().map(|p| p.v).collect();
        assert_eq!(vs, [20.0, 30.0, 40.0]);
        assert_eq!(s.last(), Some(Point { t: 4.0, v: 40.0 }));
    }

    #[test]
    fn fields_and_series_are_apart_and_a_reused_pid_is_a_new_process() {
        let mut h = History::new(10);
        let (p1, p2) = (process(7, 100), process(7, 900));
        h.push(&p1, "used_gpu_memory", Point { t: 1.0, v: 1.0 });
        h.push(&p2, "used_gpu_memory", Point { t: 2.0, v: 2.0 });
        h.push(&gpu("GPU-a"), "memory.used", Point { t: 1.0, v: 5.0 });
        h.push(&gpu("GPU-a"), "utilization.gpu", Point { t: 1.0, v: 50.0 });
        assert_eq!(
            h.series(&p1, "used_gpu_memory").unwrap().last().unwrap().v,
            1.0
        );
        assert_eq!(
            h.series(&p2, "used_gpu_memory").unwrap().last().unwrap().v,
            2.0
        );
        assert!(h.series(&p1, "memory.used").is_none());
        // A field name built at run time finds the same series.
        let name = String::from("utilization.gpu");
        assert_eq!(h.series(&gpu("GPU-a"), &name).unwrap().len(), 1);
        let keys: Vec<_> = h.keys().collect();
        assert_eq!(keys.len(), 4);
        assert_eq!(keys[0], (&gpu("GPU-a"), "memory.used"));
    }

    #[test]
    fn forgetting_drops_series_that_stopped() {
        let mut h = History::new(10);
        let gone = process(7, 0);
        h.push(&gone, "used_gpu_memory", Point { t: 1.0, v: 1.0 });
        h.push(&gpu("GPU-a"), "memory.used", Point { t: 1.0, v: 1.0 });
        h.push(&gpu("GPU-a"), "memory.used", Point { t: 10.0, v: 1.0 });
        h.forget_older_than(5.0);
        assert!(h.series(&gone, "used_gpu_memory").is_none());
        assert_eq!(h.series_count(), 1);
    }

    #[test]
    fn a_series_knows_whether_its_points_are_in_time_order() {
        let mut s = Series::with_cap(3);
        for t in [1.0, 2.0, 2.0] {
            s.push(Point { t, v: 0.0 });
        }
        assert!(s.in_order());
        // A clock stepped back: out of order until the step leaves the ring.
        for t in [0.5, 0.6] {
            s.push(Point { t, v: 0.0 });
            assert!(!s.in_order(), "{t}");
        }
        s.push(Point { t: 0.7, v: 0.0 });
        assert!(s.in_order());
    }

    /// A ring of one point: each push replaces the last, and a step back is out of order only against a point
    /// still kept.
    #[test]
    fn a_ring_of_one_compares_only_with_what_it_keeps() {
        let mut s = Series::with_cap(1);
        for t in [5.0, 1.0, 2.0] {
            s.push(Point { t, v: t });
            assert!(s.in_order(), "{t}");
            assert_eq!(s.last(), Some(Point { t, v: t }));
        }
        let mut two = Series::with_cap(2);
        for (t, in_order) in [(5.0, true), (1.0, false), (2.0, true), (1.5, false)] {
            two.push(Point { t, v: 0.0 });
            assert_eq!(two.in_order(), in_order, "{t}");
        }
    }

    #[test]
    fn values_that_are_not_numbers_are_not_kept() {
        let mut s = Series::with_cap(4);
        s.push(Point {
            t: 1.0,
            v: f64::NAN,
        });
        s.push(Point {
            t: f64::INFINITY,
            v: 1.0,
        });
        assert!(s.is_empty());
    }
}
