//! The sampled values of a run, kept in memory: one bounded ring of points
//! per series (a GPU or one process on one GPU) and field.
//!
//! Leaf data: no I/O, no clock. The loops push what they sampled; the trend
//! (`model::trend`), `--summary`, the scripting language's `rate()` and
//! `time_to_full()`, `nvq top` and `nvq plot` read it. Memory is bounded:
//! each series keeps its last `cap` points, and [`History::forget_older_than`]
//! drops the series of processes that went away.

use super::id::ColumnId;
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
        self.as_ref().gpu_uuid()
    }

    /// The key borrowed.
    pub fn as_ref(&self) -> SeriesRef<'_> {
        match self {
            SeriesKey::Gpu { uuid } => SeriesRef::Gpu { uuid },
            SeriesKey::Process {
                gpu_uuid,
                pid,
                start,
            } => SeriesRef::Process {
                gpu_uuid,
                pid: *pid,
                start: *start,
            },
        }
    }
}

/// A [`SeriesKey`] made of borrowed strings, in the same order: what a loop
/// that has the UUID at hand looks its series up by, sample after sample,
/// without building (allocating) a key; a new series copies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SeriesRef<'a> {
    /// A whole GPU's series.
    Gpu {
        /// The GPU's UUID.
        uuid: &'a str,
    },
    /// One process's series on one GPU.
    Process {
        /// The UUID of the GPU the process uses.
        gpu_uuid: &'a str,
        /// The process's PID.
        pid: u32,
        /// The process's start time (as [`SeriesKey::Process`]).
        start: u64,
    },
}

impl<'a> SeriesRef<'a> {
    /// The UUID of the GPU the series belongs to.
    pub fn gpu_uuid(&self) -> &'a str {
        match self {
            SeriesRef::Gpu { uuid } => uuid,
            SeriesRef::Process { gpu_uuid, .. } => gpu_uuid,
        }
    }

    /// The owned key.
    pub fn to_key(self) -> SeriesKey {
        match self {
            SeriesRef::Gpu { uuid } => SeriesKey::Gpu {
                uuid: uuid.to_string(),
            },
            SeriesRef::Process {
                gpu_uuid,
                pid,
                start,
            } => SeriesKey::Process {
                gpu_uuid: gpu_uuid.to_string(),
                pid,
                start,
            },
        }
    }
}

impl<'a> From<&'a SeriesKey> for SeriesRef<'a> {
    fn from(k: &'a SeriesKey) -> Self {
        k.as_ref()
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
    /// With block minima, the number of the next point pushed (the oldest kept is `pushed - len`); the points
    /// kept when they started are numbered from 0. Not counted without them.
    pushed: u64,
    /// When kept ([`Series::keep_minima`]): per level of [`LEVELS`], for each block of that level's size in push
    /// order that still has a point, its lowest point (the oldest of equal ones), oldest block first. A trend asked
    /// every sample then finds a slice's lowest point without reading every point of it.
    minima: Option<Box<[VecDeque<Low>; LEVELS.len()]>>,
}

/// A block's lowest point: its number in push order and its value.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Low {
    n: u64,
    v: f64,
}

/// The points per block at each level of [`Series::keep_minima`]'s minima: blocks of 8 points, and blocks of 64
/// (eight of the first). A range of `r` points then reads at most 7 points, 7 blocks and `r / 64` big blocks at
/// each end and in the middle, about 20 numbers for a window's twelfth of 3,600 points instead of 300.
const LEVELS: [u64; 2] = [8, 64];

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
            pushed: 0,
            minima: None,
        }
    }

    /// Keep each block's lowest point from now on (built from the points kept so far), so that
    /// [`Series::lowest_in`] reads a block's minimum instead of its points. Costs a few instructions a push and
    /// about one point's worth of memory per 7 points.
    pub fn keep_minima(&mut self) {
        if self.minima.is_some() {
            return;
        }
        self.pushed = 0;
        let points = std::mem::take(&mut self.points);
        self.minima = Some(Box::default());
        for p in &points {
            self.note_pushed(p.v);
        }
        self.points = points;
    }

    /// The number of the oldest point kept.
    fn front_number(&self) -> u64 {
        self.pushed - self.points.len() as u64
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
        if self.minima.is_some() {
            self.note_pushed(p.v);
        }
    }

    /// A new point of value `v` (numbered `pushed`): at each level, its block's lowest, or a new block's.
    fn note_pushed(&mut self, v: f64) {
        let n = self.pushed;
        self.pushed += 1;
        let Some(minima) = self.minima.as_mut() else {
            return;
        };
        for (level, size) in minima.iter_mut().zip(LEVELS) {
            match level.back_mut() {
                Some(low) if low.n / size == n / size => {
                    if v < low.v {
                        *low = Low { n, v };
                    }
                }
                _ => level.push_back(Low { n, v }),
            }
        }
    }

    /// The oldest point, numbered `n`, was dropped (the ring no longer holds it): at each level, when it was its
    /// block's lowest, the block's lowest is found again from what the block has left, read from the level below
    /// (or the points), or the block goes, with nothing left.
    fn note_dropped(&mut self, n: u64) {
        let front = self.front_number();
        let Some(minima) = self.minima.as_mut() else {
            return;
        };
        for l in 0..LEVELS.len() {
            if minima[l].front().map(|low| low.n) != Some(n) {
                // Its block's lowest is a later point, so every level above's too.
                break;
            }
            let size = LEVELS[l];
            let block = n / size;
            let mut low: Option<Low> = None;
            let mut take = |c: Low| {
                if low.map_or(true, |b| c.v < b.v) {
                    low = Some(c);
                }
            };
            match l.checked_sub(1).and_then(|below| minima.get(below)) {
                Some(below) => below
                    .iter()
                    .take_while(|c| c.n / size == block)
                    .for_each(|c| take(*c)),
                None => {
                    let end = ((block + 1) * size).min(self.pushed);
                    let left = usize::try_from(end.saturating_sub(front)).unwrap_or(usize::MAX);
                    for (i, p) in self.points.iter().take(left).enumerate() {
                        take(Low {
                            n: front + i as u64,
                            v: p.v,
                        });
                    }
                }
            }
            let level = &mut minima[l];
            match (low, level.front_mut()) {
                (Some(low), Some(f)) => *f = low,
                _ => {
                    level.pop_front();
                }
            }
        }
    }

    /// Drop the oldest point to make room (a full ring; once the newest is gone too, order starts again).
    fn drop_oldest(&mut self) {
        let n = self.minima.is_some().then(|| self.front_number());
        if let (Some(a), Some(b)) = (self.points.pop_front(), self.points.front()) {
            self.disorder -= usize::from(b.t < a.t);
        }
        if let Some(n) = n {
            self.note_dropped(n);
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

    /// The index of the first point (0: oldest) for which `pred` is false, all before it being true: a binary
    /// search, so `pred` must hold for a run of the oldest points and for none after them.
    pub fn partition_point(&self, pred: impl FnMut(&Point) -> bool) -> usize {
        self.points.partition_point(pred)
    }

    /// The index of the lowest point of those at `lo..hi` (the oldest of equal ones); `None` for an empty range.
    /// With [`Series::keep_minima`], whole blocks are read as their minimum: the points up to the first small
    /// block's start, small blocks up to the first big block's, the big blocks, then small blocks and points again.
    pub fn lowest_in(&self, lo: usize, hi: usize) -> Option<usize> {
        let hi = hi.min(self.points.len());
        let lo = lo.min(hi);
        let mut best: Option<(usize, f64)> = None;
        let mut take = |i: usize, v: f64| {
            if best.map_or(true, |(_, b)| v < b) {
                best = Some((i, v));
            }
        };
        let [small, big] = LEVELS;
        // In point numbers (counted only with minima): `lo..a` and `b..hi` are read point by point, `a..b` as blocks.
        let blocks = self.minima.as_ref().and_then(|m| {
            let front = self.front_number();
            let (n_lo, n_hi) = (front + lo as u64, front + hi as u64);
            let (a, b) = (n_lo.next_multiple_of(small), n_hi / small * small);
            (a < b).then_some((m, front, a, b))
        });
        let Some((minima, front, a, b)) = blocks else {
            for (i, p) in self.points.range(lo..hi).enumerate() {
                take(lo + i, p.v);
            }
            return best.map(|(i, _)| i);
        };
        let index = |n: u64| usize::try_from(n - front).unwrap_or(usize::MAX);
        // The minima of the blocks of `size` points that cover the numbers `from..to` (both on block starts).
        let run = |level: usize, size: u64, from: u64, to: u64| {
            let first = usize::try_from(from / size - front / size).unwrap_or(usize::MAX);
            let count = usize::try_from((to - from) / size).unwrap_or(0);
            let level = &minima[level];
            let end = first.saturating_add(count).min(level.len());
            level.range(first.min(end)..end)
        };
        for (i, p) in self.points.range(lo..index(a)).enumerate() {
            take(lo + i, p.v);
        }
        let (big_a, big_b) = (a.next_multiple_of(big), b / big * big);
        let lows = if big_a < big_b {
            run(0, small, a, big_a)
                .chain(run(1, big, big_a, big_b))
                .chain(run(0, small, big_b, b))
        } else {
            run(0, small, a, b)
                .chain(run(1, big, a, a))
                .chain(run(0, small, b, b))
        };
        for low in lows {
            take(index(low.n), low.v);
        }
        let tail = index(b);
        for (i, p) in self.points.range(tail..hi).enumerate() {
            take(tail + i, p.v);
        }
        best.map(|(i, _)| i)
    }
}

/// Every series of a run, keyed by (series, field id): the field's [`ColumnId`] (a catalogue fact, a list-mode
/// field, or a monitor's column), never its name, so it costs no allocation or string comparison per sample.
#[derive(Clone, Debug)]
pub struct History {
    cap: usize,
    /// Per series, in key order, its fields (a handful: a linear search beats hashing).
    series: Vec<(SeriesKey, Vec<(ColumnId, Series)>)>,
    /// The place after the series pushed last: a loop pushes its series in the same order every sample, so
    /// the next one is most often there, found with one comparison instead of a search.
    next: usize,
    /// The fields whose series keep block minima ([`Series::keep_minima`]): those a trend is asked of every sample.
    minima: Vec<ColumnId>,
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
            minima: Vec::new(),
        }
    }

    /// Let every series of `field`, those there and those to come, keep block minima: its trend is asked every
    /// sample (`rate()`, `time_to_full()`), and then reads a window without reading every point of it.
    pub fn keep_minima_of(&mut self, field: impl Into<ColumnId>) {
        let field = field.into();
        if !self.minima.contains(&field) {
            self.minima.push(field);
        }
        for (_, fields) in &mut self.series {
            for (f, s) in fields.iter_mut() {
                if *f == field {
                    s.keep_minima();
                }
            }
        }
    }

    /// The fields of `key`'s series (made if new), and how to make a new one of them.
    fn fields_mut(&mut self, key: SeriesRef<'_>) -> (&mut Vec<(ColumnId, Series)>, NewSeries<'_>) {
        let at = self.slot(key);
        let new = NewSeries {
            cap: self.cap,
            minima: &self.minima,
        };
        // `slot` gives the place of a series it found or just inserted: always in range.
        (&mut self.series[at].1, new)
    }

    /// The place of `key`'s series, made (empty) if new; remembered for the next push.
    fn slot(&mut self, key: SeriesRef<'_>) -> usize {
        let at = match self.series.get(self.next) {
            Some((k, _)) if k.as_ref() == key => self.next,
            _ => match self.series.binary_search_by(|(k, _)| k.as_ref().cmp(&key)) {
                Ok(at) => at,
                Err(at) => {
                    // Only a new series copies its key.
                    self.series.insert(at, (key.to_key(), Vec::new()));
                    at
                }
            },
        };
        self.next = at + 1;
        at
    }

    /// The most points each series keeps.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Append one point to the series of `key` and `field`, creating it if new; see [`Series::push`].
    pub fn push<'k>(
        &mut self,
        key: impl Into<SeriesRef<'k>>,
        field: impl Into<ColumnId>,
        p: Point,
    ) {
        self.push_row(key, [(field.into(), p)]);
    }

    /// Push one sample's points of one series: the series is looked up once,
    /// and each field first where it was on the sample before (a loop
    /// records the same fields in the same order every sample), so a row
    /// costs one key lookup, not one per field.
    pub fn push_row<'k>(
        &mut self,
        key: impl Into<SeriesRef<'k>>,
        points: impl IntoIterator<Item = (ColumnId, Point)>,
    ) {
        let (fields, new) = self.fields_mut(key.into());
        for (i, (field, p)) in points.into_iter().enumerate() {
            if let Some((f, s)) = fields.get_mut(i) {
                if *f == field {
                    s.push(p);
                    continue;
                }
            }
            match fields.iter_mut().find(|(f, _)| *f == field) {
                Some((_, s)) => s.push(p),
                None => {
                    let mut s = new.series(field);
                    s.push(p);
                    fields.push((field, s));
                }
            }
        }
    }

    /// The series of `key` and `field`; `None` when nothing was pushed to it.
    pub fn series<'k>(
        &self,
        key: impl Into<SeriesRef<'k>>,
        field: impl Into<ColumnId>,
    ) -> Option<&Series> {
        let (key, field) = (key.into(), field.into());
        // Most often the series pushed last (a loop reads a row's trends right after pushing it).
        let at = match self.next.checked_sub(1).and_then(|at| self.series.get(at)) {
            Some((k, _)) if k.as_ref() == key => self.next - 1,
            _ => self
                .series
                .binary_search_by(|(k, _)| k.as_ref().cmp(&key))
                .ok()?,
        };
        self.series
            .get(at)?
            .1
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, s)| s)
    }

    /// Every (series, field) pair, series in key order (GPUs before processes), fields in the order they came.
    pub fn keys(&self) -> impl Iterator<Item = (&SeriesKey, ColumnId)> + '_ {
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

/// How a history makes a new series: its cap, and block minima for the fields that keep them.
struct NewSeries<'a> {
    cap: usize,
    minima: &'a [ColumnId],
}

impl NewSeries<'_> {
    fn series(&self, field: ColumnId) -> Series {
        let mut s = Series::with_cap(self.cap);
        if self.minima.contains(&field) {
            s.keep_minima();
        }
        s
    }
}

impl Default for History {
    fn default() -> Self {
        History::new(History::DEFAULT_CAP)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Fact, ListField};

    const MEM: ColumnId = ColumnId::Fact(Fact::MemoryUsed);
    const UTIL: ColumnId = ColumnId::Fact(Fact::UtilizationGpu);
    const POWER: ColumnId = ColumnId::Fact(Fact::PowerDraw);
    const FAN: ColumnId = ColumnId::Fact(Fact::FanSpeed);
    const PROC_MEM: ColumnId = ColumnId::List(ListField::UsedGpuMemory);

    /// A borrowed key sorts, compares and finds series as its owned key does.
    #[test]
    fn borrowed_keys_order_and_find_as_owned_ones() {
        let proc = |u: &str, pid, start| SeriesKey::Process {
            gpu_uuid: u.to_string(),
            pid,
            start,
        };
        let keys = [
            gpu("GPU-b"),
            proc("GPU-a", 7, 0),
            gpu("GPU-a"),
            proc("GPU-a", 7, 5),
            proc("GPU-b", 1, 9),
            proc("GPU-a", 12, 0),
            gpu("GPU-"),
        ];
        for a in &keys {
            assert_eq!(a.as_ref().to_key(), *a);
            for b in &keys {
                assert_eq!(a.as_ref().cmp(&b.as_ref()), a.cmp(b), "{a:?} {b:?}");
            }
        }
        let mut h = History::new(4);
        for (i, k) in keys.iter().enumerate() {
            h.push(
                k.as_ref(),
                MEM,
                Point {
                    t: i as f64,
                    v: 1.0,
                },
            );
        }
        for (i, k) in keys.iter().enumerate() {
            let by_ref = h.series(k.as_ref(), MEM).and_then(Series::last);
            assert_eq!(by_ref, h.series(k, MEM).and_then(Series::last));
            assert_eq!(by_ref.map(|p| p.t), Some(i as f64));
        }
        assert_eq!(h.series_count(), keys.len());
    }

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
        let samples: [&[(ColumnId, f64)]; 4] = [
            &[(MEM, 1.0), (UTIL, 5.0), (POWER, 70.0)],
            &[(MEM, 2.0), (POWER, 71.0)],
            &[(POWER, 72.0), (MEM, 3.0), (UTIL, 6.0)],
            &[(MEM, 4.0), (UTIL, 7.0), (FAN, 30.0)],
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
        assert_eq!(rows.series(&gpu("GPU-a"), MEM).unwrap().len(), 4);
        assert_eq!(rows.series(&gpu("GPU-a"), UTIL).unwrap().len(), 3);
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
                h.push_row(&keys[k], [(MEM, Point { t, v })]);
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
        assert!(h.series(&gpu("GPU-e"), MEM).is_none());
    }

    #[test]
    fn ring_keeps_the_newest_cap_points_oldest_first() {
        let mut h = History::new(3);
        for i in 0..5 {
            h.push(
                &gpu("GPU-a"),
                MEM,
                Point {
                    t: f64::from(i),
                    v: f64::from(i * 10),
                },
            );
        }
        let s = h.series(&gpu("GPU-a"), MEM).unwrap();
        assert_eq!(s.len(), 3);
        let vs: Vec<f64> = s.points().map(|p| p.v).collect();
        assert_eq!(vs, [20.0, 30.0, 40.0]);
        assert_eq!(s.last(), Some(Point { t: 4.0, v: 40.0 }));
    }

    #[test]
    fn fields_and_series_are_apart_and_a_reused_pid_is_a_new_process() {
        let mut h = History::new(10);
        let (p1, p2) = (process(7, 100), process(7, 900));
        h.push(&p1, PROC_MEM, Point { t: 1.0, v: 1.0 });
        h.push(&p2, PROC_MEM, Point { t: 2.0, v: 2.0 });
        h.push(&gpu("GPU-a"), MEM, Point { t: 1.0, v: 5.0 });
        h.push(&gpu("GPU-a"), UTIL, Point { t: 1.0, v: 50.0 });
        assert_eq!(h.series(&p1, PROC_MEM).unwrap().last().unwrap().v, 1.0);
        assert_eq!(h.series(&p2, PROC_MEM).unwrap().last().unwrap().v, 2.0);
        assert!(h.series(&p1, MEM).is_none());
        // A field's id found by its name at run time finds the same series.
        let name = String::from("utilization.gpu");
        let id = Fact::by_name(&name).map(ColumnId::Fact).unwrap();
        assert_eq!(h.series(&gpu("GPU-a"), id).unwrap().len(), 1);
        let keys: Vec<_> = h.keys().collect();
        assert_eq!(keys.len(), 4);
        assert_eq!(keys[0], (&gpu("GPU-a"), MEM));
    }

    #[test]
    fn forgetting_drops_series_that_stopped() {
        let mut h = History::new(10);
        let gone = process(7, 0);
        h.push(&gone, PROC_MEM, Point { t: 1.0, v: 1.0 });
        h.push(&gpu("GPU-a"), MEM, Point { t: 1.0, v: 1.0 });
        h.push(&gpu("GPU-a"), MEM, Point { t: 10.0, v: 1.0 });
        h.forget_older_than(5.0);
        assert!(h.series(&gone, PROC_MEM).is_none());
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

    /// With block minima kept (from the start, or from a later point), the lowest point of any range is the one
    /// a reading of every point finds, the oldest of equal ones, while the ring drops its oldest points: values
    /// with many ties, rising runs (each dropped point a block's lowest) and falling ones.
    #[test]
    fn block_minima_find_what_reading_every_point_finds() {
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        // Caps about and beyond a big block (64 points), so that big blocks lose points while read.
        for cap in [1, 5, 16, 17, 40, 64, 65, 100, 300] {
            for shape in 0..3 {
                let (mut plain, mut kept) = (Series::with_cap(cap), Series::with_cap(cap));
                kept.keep_minima();
                let mut late = Series::with_cap(cap);
                for i in 0..700u64 {
                    let v = match shape {
                        0 => (next() % 4) as f64,
                        1 => i as f64 + (next() % 3) as f64,
                        _ => 1000.0 - i as f64,
                    };
                    let p = Point { t: i as f64, v };
                    plain.push(p);
                    kept.push(p);
                    late.push(p);
                    if i == 100 {
                        late.keep_minima();
                    }
                    let n = plain.len();
                    for _ in 0..4 {
                        let (a, b) = ((next() as usize) % (n + 1), (next() as usize) % (n + 2));
                        let want = plain.lowest_in(a, b);
                        assert_eq!(
                            kept.lowest_in(a, b),
                            want,
                            "cap {cap} shape {shape} at {i}: {a}..{b}"
                        );
                        assert_eq!(
                            late.lowest_in(a, b),
                            want,
                            "cap {cap} shape {shape} at {i}: {a}..{b}"
                        );
                    }
                    assert_eq!(kept.lowest_in(0, n), plain.lowest_in(0, n));
                }
            }
        }
        let mut s = Series::with_cap(8);
        for (t, v) in [(0.0, 3.0), (1.0, 1.0), (2.0, 1.0), (3.0, 2.0)] {
            s.push(Point { t, v });
        }
        assert_eq!(s.lowest_in(0, 4), Some(1), "the oldest of equal ones");
        assert_eq!(s.lowest_in(2, 4), Some(2));
        assert_eq!(s.lowest_in(3, 3), None);
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
